import type { AppErrorData } from '../errors';

/**
 * The wire protocol between a client (the UI) and a dispatcher (the core). Requests and
 * subscriptions are numbered by the client; cancelling and unsubscribing are messages
 * too, so the work behind an abandoned call or a closed view stops on the server.
 *
 *   client → server: call, cancel, listen, unlisten, notify, received
 *   server → client: result | error (one per call), event* then listen-error (per listen)
 *
 * A `notify` is a one-way call: no id, no answer. The port keeps messages in order and the
 * dispatcher runs each notification as it arrives, so a pane's keystrokes need neither a
 * round trip nor a queue to stay in order; what fails is the service's to report (the
 * terminals service sends a `notice` event).
 *
 * `received` is the client saying it has read so many more bytes of event payloads (terminal
 * output): the dispatcher keeps only a window of them on the way (scheduler.ts).
 */
export type ClientMessage =
  | {
      readonly type: 'call';
      readonly id: number;
      readonly service: string;
      readonly method: string;
      readonly args: readonly unknown[];
    }
  | { readonly type: 'cancel'; readonly id: number }
  | {
      readonly type: 'listen';
      readonly id: number;
      readonly event: string;
      readonly argument: unknown;
    }
  | { readonly type: 'unlisten'; readonly id: number }
  | {
      readonly type: 'notify';
      readonly service: string;
      readonly method: string;
      readonly args: readonly unknown[];
    }
  | { readonly type: 'received'; readonly bytes: number };

export type ServerMessage =
  | { readonly type: 'result'; readonly id: number; readonly value: unknown }
  | { readonly type: 'error'; readonly id: number; readonly error: AppErrorData }
  | { readonly type: 'event'; readonly id: number; readonly payload: unknown }
  | { readonly type: 'listen-error'; readonly id: number; readonly error: AppErrorData };

export type Message = ClientMessage | ServerMessage;

type Record_ = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Reads a client message defensively: the other side is a page, and may be anything. */
export function parseClientMessage(value: unknown): ClientMessage | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'notify') {
    if (typeof value.service !== 'string' || typeof value.method !== 'string') return undefined;
    if (!Array.isArray(value.args)) return undefined;
    return { type: 'notify', service: value.service, method: value.method, args: value.args };
  }
  if (value.type === 'received') {
    return isId(value.bytes) ? { type: 'received', bytes: value.bytes } : undefined;
  }
  if (!isId(value.id)) return undefined;
  const id = value.id;
  switch (value.type) {
    case 'call':
      if (typeof value.service !== 'string' || typeof value.method !== 'string') return undefined;
      if (!Array.isArray(value.args)) return undefined;
      return { type: 'call', id, service: value.service, method: value.method, args: value.args };
    case 'cancel':
    case 'unlisten':
      return { type: value.type, id };
    case 'listen':
      if (typeof value.event !== 'string') return undefined;
      return { type: 'listen', id, event: value.event, argument: value.argument };
    default:
      return undefined;
  }
}

export function parseServerMessage(value: unknown): ServerMessage | undefined {
  if (!isRecord(value) || !isId(value.id)) return undefined;
  const id = value.id;
  switch (value.type) {
    case 'result':
      return { type: 'result', id, value: value.value };
    case 'event':
      return { type: 'event', id, payload: value.payload };
    case 'error':
    case 'listen-error':
      // The error is rebuilt (and distrusted) by fromAppErrorData at the point of use.
      return { type: value.type, id, error: value.error as AppErrorData };
    default:
      return undefined;
  }
}
