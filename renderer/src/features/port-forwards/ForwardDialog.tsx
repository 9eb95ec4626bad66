import { useEffect, useId, useMemo, useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { ForwardEntry } from '../../../../shared/model';
import { useModel, useNodes, useResources } from '../../app/context';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { Button } from '../../ui/Button';
import { Icon } from '../../ui/icons';
import {
  emptyForm,
  exposesBeyondLoopback,
  hasErrors,
  optionsOf,
  specOf,
  validateForm,
  type AddressChoice,
  type ForwardForm,
  type PortError,
  type PortRow,
} from './forward-form';
import { localUrls } from './entries';
import { declaredPorts, type DeclaredPort } from './port-mappings';
import { forwardsOf, portForwardsViewId } from './store';

/** The pod a forward goes to, as the dialog needs it. */
export interface ForwardDialogPod {
  readonly nodeId: string;
  readonly podSandboxId: string;
  readonly namespace: string;
  readonly name: string;
}

type Declared =
  | { readonly state: 'loading' }
  | { readonly state: 'done'; readonly ports: readonly DeclaredPort[] }
  | { readonly state: 'failed'; readonly error: AppErrorData };

/** The pod's declared ports, read from its verbose status when the dialog opens. */
function useDeclaredPorts(pod: ForwardDialogPod | undefined): Declared | undefined {
  const model = useModel();
  const [declared, setDeclared] = useState<Declared | undefined>();
  const nodeId = pod?.nodeId;
  const podSandboxId = pod?.podSandboxId;
  useEffect(() => {
    if (nodeId === undefined || podSandboxId === undefined) {
      setDeclared(undefined);
      return;
    }
    let current = true;
    setDeclared({ state: 'loading' });
    model.client.services.resources.podDetail(nodeId, podSandboxId).then(
      (detail) => {
        if (current) setDeclared({ state: 'done', ports: declaredPorts(detail.info) });
      },
      (error: unknown) => {
        if (current) setDeclared({ state: 'failed', error: toAppErrorData(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [model, nodeId, podSandboxId]);
  return declared;
}

/** Ready pods of the connected nodes, for the picker when no pod was given. */
function useReadyPods(): ForwardDialogPod[] {
  const pods = useResources((state) => state.index.pods);
  return useMemo(
    () =>
      [...pods.values()]
        .filter((pod) => pod.state === 'ready')
        .map((pod) => ({
          nodeId: pod.nodeId,
          podSandboxId: pod.id,
          namespace: pod.namespace,
          name: pod.name,
        }))
        .sort(
          (a, b) =>
            a.namespace.localeCompare(b.namespace) ||
            a.name.localeCompare(b.name) ||
            a.nodeId.localeCompare(b.nodeId),
        ),
    [pods],
  );
}

function podKey(pod: ForwardDialogPod): string {
  return `${pod.nodeId}\u0000${pod.podSandboxId}`;
}

function DeclaredPorts({
  declared,
  onPick,
}: {
  declared: Declared | undefined;
  onPick: (port: number) => void;
}) {
  if (declared === undefined) return null;
  if (declared.state === 'loading') {
    return (
      <div className="field-help">
        <span className="spinner" /> Reading the ports the pod declares…
      </div>
    );
  }
  if (declared.state === 'failed') {
    return (
      <div className="field-help">
        Could not read the pod&apos;s declared ports ({declared.error.message}). Type any port.
      </div>
    );
  }
  const tcp = declared.ports.filter((port) => port.protocol === 'TCP');
  const other = declared.ports.filter((port) => port.protocol !== 'TCP');
  if (declared.ports.length === 0) {
    return (
      <div className="field-help">
        The pod declares no ports (or its runtime does not report them). Any port inside the pod can
        be forwarded: type it.
      </div>
    );
  }
  return (
    <div className="forward-declared">
      <span className="field-help">Declared by the pod:</span>
      <div className="chips" role="group" aria-label="Declared ports">
        {tcp.map((port) => (
          <button
            key={port.containerPort}
            type="button"
            className="chip forward-chip"
            title={`Forward pod port ${port.containerPort}`}
            onClick={() => onPick(port.containerPort)}
          >
            {port.containerPort}/TCP
          </button>
        ))}
        {other.map((port) => (
          <span
            key={`${port.protocol}/${port.containerPort}`}
            className="chip faint"
            title="Only TCP ports can be forwarded"
          >
            {port.containerPort}/{port.protocol}
          </span>
        ))}
      </div>
    </div>
  );
}

function PortRows({
  rows,
  errors,
  touched,
  declared,
  onChange,
}: {
  rows: readonly PortRow[];
  errors: readonly (PortError | undefined)[];
  touched: boolean;
  declared: readonly DeclaredPort[];
  onChange: (rows: PortRow[]) => void;
}) {
  const listId = useId();
  const set = (index: number, row: Partial<PortRow>): void =>
    onChange(rows.map((current, i) => (i === index ? { ...current, ...row } : current)));
  return (
    <div className="forward-ports">
      <datalist id={listId}>
        {declared
          .filter((port) => port.protocol === 'TCP')
          .map((port) => (
            <option key={port.containerPort} value={port.containerPort} />
          ))}
      </datalist>
      {rows.map((row, index) => {
        const error = touched ? errors[index] : undefined;
        return (
          <div key={index} className="forward-port-row">
            <Field id={`${listId}-remote-${index}`} label="Pod port">
              <input
                id={`${listId}-remote-${index}`}
                className="input mono"
                inputMode="numeric"
                list={listId}
                placeholder="8080"
                value={row.remote}
                aria-invalid={error?.field === 'remote'}
                data-autofocus={index === 0 ? true : undefined}
                onChange={(event) => set(index, { remote: event.target.value })}
              />
            </Field>
            <span className="forward-arrow" aria-hidden>
              ←
            </span>
            <Field id={`${listId}-local-${index}`} label="Local port">
              <input
                id={`${listId}-local-${index}`}
                className="input mono"
                inputMode="numeric"
                placeholder="automatic"
                value={row.local}
                aria-invalid={error?.field === 'local'}
                onChange={(event) => set(index, { local: event.target.value })}
              />
            </Field>
            <button
              type="button"
              className="btn btn-small btn-ghost btn-icon"
              aria-label={`Remove port ${index + 1}`}
              title="Remove this port"
              disabled={rows.length === 1}
              onClick={() => onChange(rows.filter((_, i) => i !== index))}
            >
              <Icon name="close" size={14} />
            </button>
            {error !== undefined && (
              <div className="field-error forward-port-error" role="alert">
                {error.message}
              </div>
            )}
          </div>
        );
      })}
      <Button
        small
        variant="ghost"
        icon="plus"
        onClick={() => onChange([...rows, { remote: '', local: '' }])}
      >
        Add a port
      </Button>
    </div>
  );
}

function ListenOn({
  form,
  error,
  onChange,
}: {
  form: ForwardForm;
  error: string | undefined;
  onChange: (change: Partial<ForwardForm>) => void;
}) {
  const name = useId();
  const choice = (value: AddressChoice, label: string, help: string) => (
    <label className="checkbox">
      <input
        type="radio"
        name={name}
        checked={form.address === value}
        onChange={() => onChange({ address: value })}
      />
      <span>
        {label} <span className="faint">{help}</span>
      </span>
    </label>
  );
  return (
    <div className="field" role="radiogroup" aria-label="Listen on">
      <span className="field-label">Listen on</span>
      {choice('loopback', 'This machine only', '(127.0.0.1 and ::1)')}
      {choice('all', 'Every network interface', '(0.0.0.0)')}
      {choice('custom', 'One address', '')}
      {form.address === 'custom' && (
        <input
          className="input mono"
          aria-label="Listen address"
          placeholder="192.168.1.10"
          value={form.customAddress}
          aria-invalid={error !== undefined}
          onChange={(event) => onChange({ customAddress: event.target.value })}
        />
      )}
      {error !== undefined && <div className="field-error">{error}</div>}
      {exposesBeyondLoopback(form) && error === undefined && (
        <InfoBanner tone="warn">
          <strong>Other machines can reach this forward.</strong> Anyone who can connect to this
          machine on that address reaches the pod&apos;s port, without any login. Keep &quot;This
          machine only&quot; unless you mean to share it.
        </InfoBanner>
      )}
    </div>
  );
}

/** Create a forward: from a pod's actions (pod given) or the palette (pod picked). */
export function ForwardDialog({
  pod: givenPod,
  onClose,
}: {
  pod: ForwardDialogPod | undefined;
  onClose: () => void;
}) {
  const model = useModel();
  const readyPods = useReadyPods();
  const nodes = useNodes((state) => state.nodes);
  const [picked, setPicked] = useState<string | undefined>();
  // The first pod until one is picked (the list may still be loading when the dialog opens).
  const pickedKey = picked ?? (readyPods[0] === undefined ? undefined : podKey(readyPods[0]));
  const pod = givenPod ?? readyPods.find((candidate) => podKey(candidate) === pickedKey);
  const declared = useDeclaredPorts(pod);
  const [form, setForm] = useState<ForwardForm>(emptyForm);
  const [touched, setTouched] = useState(false);
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<AppErrorData | undefined>();
  const errors = validateForm(form);
  const change = (next: Partial<ForwardForm>): void =>
    setForm((current) => ({ ...current, ...next }));
  const declaredList = declared?.state === 'done' ? declared.ports : [];

  // The first declared TCP port fills an untouched first row: the common case is one click.
  const firstTcp = declaredList.find((port) => port.protocol === 'TCP')?.containerPort;
  useEffect(() => {
    if (firstTcp === undefined) return;
    setForm((current) =>
      current.ports.length === 1 && current.ports[0]?.remote === ''
        ? { ...current, ports: [{ remote: String(firstTcp), local: current.ports[0].local }] }
        : current,
    );
  }, [firstTcp]);

  const pick = (port: number): void => {
    setForm((current) => {
      if (current.ports.some((row) => row.remote.trim() === String(port))) return current;
      const empty = current.ports.findIndex((row) => row.remote.trim() === '');
      const ports =
        empty === -1
          ? [...current.ports, { remote: String(port), local: '' }]
          : current.ports.map((row, i) => (i === empty ? { ...row, remote: String(port) } : row));
      return { ...current, ports };
    });
  };

  const create = async (): Promise<void> => {
    setTouched(true);
    if (pod === undefined || hasErrors(errors) || creating) return;
    setCreating(true);
    setFailure(undefined);
    let created: ForwardEntry;
    try {
      created = await model.client.services.forwards.create(
        pod.nodeId,
        specOf(form, { kind: 'pod', namespace: pod.namespace, name: pod.name }),
        optionsOf(form),
      );
    } catch (error) {
      // Shown here, where the port or address can be changed and tried again.
      setFailure(toAppErrorData(error));
      setCreating(false);
      return;
    }
    onClose();
    const url = created.live === undefined ? undefined : localUrls(created.live.ports)[0];
    model.toasts.getState().show({
      tone: 'success',
      title: `Forwarding ${created.name}`,
      ...(url !== undefined && { body: `${url.href} → ${pod.name}:${url.remotePort}` }),
    });
    forwardsOf(model).store.setState({ selectedKey: created.id });
    model.ui.getState().navigate(portForwardsViewId);
  };

  const nodeName = (nodeId: string): string =>
    nodes.find((node) => node.nodeId === nodeId)?.name ?? nodeId;

  return (
    <Dialog
      title={givenPod !== undefined ? `Forward a port of ${givenPod.name}` : 'New port forward'}
      wide
      onClose={onClose}
      onSubmit={() => void create()}
      footer={
        <FormActions
          submitLabel={creating ? 'Starting…' : 'Start forward'}
          onCancel={onClose}
          disabled={creating || pod === undefined}
          working={creating}
        />
      }
    >
      <div className="form-grid forward-form">
        {givenPod !== undefined ? (
          <Field label="Pod">
            <div>
              <span className="mono">
                {givenPod.namespace}/{givenPod.name}
              </span>{' '}
              <span className="faint">on {nodeName(givenPod.nodeId)}</span>
            </div>
          </Field>
        ) : (
          <Field
            id="forward-pod"
            label="Pod"
            {...(readyPods.length === 0 && {
              error: 'No ready pod on the connected nodes. Connect a node, or run a pod first.',
            })}
          >
            {readyPods.length > 0 && (
              <select
                id="forward-pod"
                className="select"
                value={pickedKey}
                onChange={(event) => setPicked(event.target.value)}
              >
                {readyPods.map((candidate) => (
                  <option key={podKey(candidate)} value={podKey(candidate)}>
                    {candidate.namespace}/{candidate.name} — {nodeName(candidate.nodeId)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <DeclaredPorts declared={declared} onPick={pick} />
        <PortRows
          rows={form.ports}
          errors={errors.ports}
          touched={touched}
          declared={declaredList}
          onChange={(ports) => change({ ports })}
        />
        <ListenOn form={form} error={touched ? errors.address : undefined} onChange={change} />
        <div className="field-row">
          <Field id="forward-transport" label="Transport">
            <select
              id="forward-transport"
              className="select"
              value={form.transport}
              onChange={(event) =>
                change({ transport: event.target.value as ForwardForm['transport'] })
              }
            >
              <option value="auto">Automatic (SPDY, else WebSocket)</option>
              <option value="spdy">SPDY only</option>
              <option value="websocket">WebSocket only</option>
            </select>
          </Field>
          <Field id="forward-name" label="Name (optional)">
            <input
              id="forward-name"
              className="input"
              placeholder={pod === undefined ? '' : `${pod.namespace}/${pod.name}`}
              value={form.name}
              onChange={(event) => change({ name: event.target.value })}
            />
          </Field>
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.save}
            onChange={(event) => change({ save: event.target.checked })}
          />
          Save this forward <span className="faint">(kept when Porthole restarts)</span>
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.save && form.autoStart}
            disabled={!form.save}
            onChange={(event) => change({ autoStart: event.target.checked })}
          />
          Start it whenever its node connects
        </label>
        {failure !== undefined && <ErrorBanner error={failure} title="The forward did not start" />}
      </div>
    </Dialog>
  );
}
