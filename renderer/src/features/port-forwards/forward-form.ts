/**
 * The forward dialog's form as plain data, checked without a DOM: what the user typed
 * becomes a ForwardSpec, or a message next to the field that is wrong.
 */
import type {
  ForwardOptions,
  ForwardSpec,
  ForwardTarget,
  ForwardTransportChoice,
} from '../../../../shared/model';

export interface PortRow {
  /** The pod port, as typed. */
  readonly remote: string;
  /** The local port as typed; empty lets Porthole pick a free one. */
  readonly local: string;
}

/** loopback: 127.0.0.1 and ::1 (the default); all: every interface; custom: one address. */
export type AddressChoice = 'loopback' | 'all' | 'custom';

export interface ForwardForm {
  readonly ports: readonly PortRow[];
  readonly address: AddressChoice;
  readonly customAddress: string;
  readonly transport: ForwardTransportChoice;
  readonly name: string;
  readonly save: boolean;
  readonly autoStart: boolean;
}

export const emptyForm: ForwardForm = {
  ports: [{ remote: '', local: '' }],
  address: 'loopback',
  customAddress: '',
  transport: 'auto',
  name: '',
  save: false,
  autoStart: false,
};

export interface FormErrors {
  /** One message per port row (undefined where the row is fine). */
  readonly ports: readonly (string | undefined)[];
  readonly address?: string;
}

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IP literal, as the core accepts them (IPv6 checked loosely: the core has the last word). */
export function isIpAddress(text: string): boolean {
  return ipv4.test(text) || (/^[0-9a-fA-F:.]+$/.test(text) && text.includes(':'));
}

/** Only this machine can reach it: 127.0.0.0/8 and ::1. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^127\./.test(address);
}

/** The listen addresses the form asks for; undefined means the core's loopback default. */
export function addressesOf(form: ForwardForm): string[] | undefined {
  switch (form.address) {
    case 'loopback':
      return undefined;
    case 'all':
      return ['0.0.0.0'];
    case 'custom':
      return [form.customAddress.trim()];
  }
}

/** Reachable from other machines: the dialog warns before creating it. */
export function exposesBeyondLoopback(form: ForwardForm): boolean {
  const addresses = addressesOf(form);
  return addresses !== undefined && addresses.some((address) => !isLoopbackAddress(address));
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text.trim())) return undefined;
  const port = Number(text.trim());
  return port >= 1 && port <= 65535 ? port : undefined;
}

export function validateForm(form: ForwardForm): FormErrors {
  const locals = new Map<number, number>();
  const ports = form.ports.map((row, index) => {
    if (row.remote.trim() === '') return 'Enter the pod port.';
    if (parsePort(row.remote) === undefined) return 'A pod port is a number from 1 to 65535.';
    if (row.local.trim() === '') return undefined;
    const local = parsePort(row.local);
    if (local === undefined) {
      return 'A local port is a number from 1 to 65535, or empty for a free one.';
    }
    const earlier = locals.get(local);
    if (earlier !== undefined) return `Local port ${local} is used by port ${earlier + 1} too.`;
    locals.set(local, index);
    return undefined;
  });
  let address: string | undefined;
  if (form.address === 'custom') {
    const text = form.customAddress.trim();
    if (text === '') address = 'Enter an IP address to listen on.';
    else if (!isIpAddress(text)) address = `"${text}" is not an IP address (e.g. 192.168.1.10).`;
  }
  return { ports, ...(address !== undefined && { address }) };
}

export function hasErrors(errors: FormErrors): boolean {
  return errors.address !== undefined || errors.ports.some((message) => message !== undefined);
}

/** The spec to create; call only when validateForm found nothing. */
export function specOf(form: ForwardForm, target: ForwardTarget): ForwardSpec {
  const addresses = addressesOf(form);
  return {
    target,
    ports: form.ports.map((row) => ({
      remotePort: parsePort(row.remote) ?? 0,
      localPort: row.local.trim() === '' ? 0 : (parsePort(row.local) ?? 0),
    })),
    ...(addresses !== undefined && { addresses }),
    ...(form.transport !== 'auto' && { transport: form.transport }),
  };
}

export function optionsOf(form: ForwardForm): ForwardOptions {
  const name = form.name.trim();
  return {
    ...(name !== '' && { name }),
    save: form.save,
    autoStart: form.save && form.autoStart,
    // The user chose the address and saw the dialog's warning: that is the confirmation.
    ...(exposesBeyondLoopback(form) && { exposeBeyondLoopback: true }),
  };
}
