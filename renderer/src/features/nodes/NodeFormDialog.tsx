import { useState, type ReactElement } from 'react';
import type { NodeStatus } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { nodeTopic, runAction } from '../../app/model';
import { Dialog } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { withPending } from './nodes-store';
import {
  draftFromStatus,
  emptyDraft,
  maxTimeoutSeconds,
  validateProfile,
  type ProfileDraft,
  type ProfileField,
} from './profile-form';

/**
 * Add or edit a node profile: a local runtime socket, or a node reached over SSH. Problems
 * show under their field once the user has left it (or tried to save), not while they
 * are still typing the first characters.
 */
export function NodeFormDialog({ node, onClose }: { node?: NodeStatus; onClose: () => void }) {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const [draft, setDraft] = useState<ProfileDraft>(() =>
    node === undefined ? emptyDraft : draftFromStatus(node, node.profile),
  );
  const [touched, setTouched] = useState<ReadonlySet<ProfileField>>(new Set());
  const [saving, setSaving] = useState(false);
  const validation = validateProfile(draft, nodes);
  const errors = validation.ok ? {} : validation.errors;
  const editing = node?.origin === 'saved';
  const ssh = draft.kind === 'ssh';

  const errorFor = (field: ProfileField): string | undefined =>
    touched.has(field) ? errors[field] : undefined;
  const touch = (field: ProfileField): void => setTouched(new Set(touched).add(field));
  const update = (patch: Partial<ProfileDraft>): void => setDraft({ ...draft, ...patch });

  const save = async (connect: boolean): Promise<void> => {
    setTouched(new Set<ProfileField>(['name', 'endpoint', 'timeoutSeconds', 'host', 'port']));
    if (!validation.ok || saving) return;
    setSaving(true);
    const saved = await runAction(
      model,
      () => model.client.services.nodes.saveProfile(validation.input),
      {
        success: (profile) => `Saved ${profile.name}`,
        failure: `Could not save ${validation.input.name}`,
      },
    );
    setSaving(false);
    if (saved === undefined) return;
    onClose();
    if (connect) {
      await withPending(model.nodes, saved.id, 'connecting', () =>
        runAction(model, () => model.client.services.nodes.connect(saved.id), {
          failure: `Could not connect to ${saved.name}`,
          topic: nodeTopic(saved.id),
        }),
      );
    }
  };

  const field = (
    id: ProfileField,
    label: string,
    input: ReactElement,
    help?: string,
  ): ReactElement => {
    return (
      <Field
        id={`node-${id}`}
        label={label}
        help={help}
        error={errorFor(id)}
        errorId={`node-${id}-error`}
      >
        {input}
      </Field>
    );
  };

  /** An SSH setting that takes any text (nothing to validate): user, identity, jump hosts. */
  const freeText = (
    id: string,
    label: string,
    text: { value: string; placeholder: string; mono?: boolean; help?: string },
    onChange: (value: string) => void,
  ): ReactElement => (
    <Field id={`node-${id}`} label={label} help={text.help}>
      <input
        id={`node-${id}`}
        className={text.mono === true ? 'input mono' : 'input'}
        value={text.value}
        placeholder={text.placeholder}
        spellCheck={false}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );

  const inputProps = (id: ProfileField) => ({
    id: `node-${id}`,
    className: 'input',
    'aria-invalid': errorFor(id) !== undefined,
    'aria-describedby': errorFor(id) !== undefined ? `node-${id}-error` : undefined,
    onBlur: () => touch(id),
  });

  return (
    <Dialog
      title={
        editing ? `Edit ${node.name}` : node !== undefined ? `Save ${node.name}` : 'Add a node'
      }
      onClose={onClose}
      onSubmit={() => void save(false)}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn" disabled={saving} onClick={() => void save(true)}>
            Save and connect
          </button>
          <button type="submit" className="btn btn-primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <div className="form-grid">
        {node === undefined && (
          <div className="field" role="radiogroup" aria-label="How Porthole reaches the node">
            <span className="field-label">Reach the runtime</span>
            <label className="checkbox">
              <input
                type="radio"
                name="node-kind"
                checked={!ssh}
                onChange={() => update({ kind: 'local' })}
              />
              On this machine (a socket)
            </label>
            <label className="checkbox">
              <input
                type="radio"
                name="node-kind"
                checked={ssh}
                onChange={() => update({ kind: 'ssh' })}
              />
              On another machine, over SSH
            </label>
          </div>
        )}
        {field(
          'name',
          'Name',
          <input
            {...inputProps('name')}
            data-autofocus
            value={draft.name}
            placeholder={ssh ? 'node-1' : 'worker-1 containerd'}
            onChange={(event) => update({ name: event.target.value })}
          />,
        )}
        {ssh &&
          field(
            'host',
            'Host',
            <input
              {...inputProps('host')}
              className="input mono"
              value={draft.host}
              placeholder="node-1"
              spellCheck={false}
              onChange={(event) => update({ host: event.target.value })}
            />,
            'A host name, an address, or an alias from ~/.ssh/config (its User, Port, IdentityFile and ProxyJump apply).',
          )}
        {ssh &&
          freeText(
            'user',
            'User',
            { value: draft.user, placeholder: 'from ~/.ssh/config' },
            (user) => update({ user }),
          )}
        {ssh &&
          field(
            'port',
            'Port',
            <input
              {...inputProps('port')}
              inputMode="numeric"
              value={draft.port}
              placeholder="22"
              onChange={(event) => update({ port: event.target.value })}
            />,
          )}
        {ssh &&
          freeText(
            'identity',
            'Identity file',
            {
              value: draft.identityFile,
              placeholder: "~/.ssh/id_ed25519 (or the agent's keys)",
              mono: true,
              help: "Tried before the config's keys. An encrypted key asks for its passphrase.",
            },
            (identityFile) => update({ identityFile }),
          )}
        {ssh &&
          freeText(
            'jump',
            'Jump hosts',
            {
              value: draft.proxyJump,
              placeholder: 'bastion, or user@jump1,jump2:2222',
              mono: true,
            },
            (proxyJump) => update({ proxyJump }),
          )}
        {field(
          'endpoint',
          ssh ? 'Runtime socket on the node' : 'Runtime endpoint',
          <input
            {...inputProps('endpoint')}
            className="input mono"
            value={draft.endpoint}
            placeholder={
              ssh ? 'found by probing the usual sockets' : 'unix:///run/containerd/containerd.sock'
            }
            spellCheck={false}
            onChange={(event) => update({ endpoint: event.target.value })}
          />,
          ssh
            ? 'Leave blank to probe containerd, CRI-O, cri-dockerd, k3s… sockets on the node.'
            : 'The CRI socket, as crictl --runtime-endpoint takes it. A bare path works too.',
        )}
        {field(
          'timeoutSeconds',
          'Call timeout (seconds)',
          <input
            {...inputProps('timeoutSeconds')}
            inputMode="decimal"
            value={draft.timeoutSeconds}
            placeholder="default"
            onChange={(event) => update({ timeoutSeconds: event.target.value })}
          />,
          `How long one CRI call may take before Porthole gives up (1–${maxTimeoutSeconds}).`,
        )}
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.autoConnect}
            onChange={(event) => update({ autoConnect: event.target.checked })}
          />
          Connect when Porthole starts
        </label>
      </div>
    </Dialog>
  );
}
