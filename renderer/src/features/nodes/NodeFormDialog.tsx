import { useState, type ReactElement } from 'react';
import type { NodeStatus } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { nodeTopic, runAction } from '../../app/model';
import { Button } from '../../ui/Button';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { nodeListOf } from './node-list-store';
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
    // The card of a node just added can be far down a long list: it comes on screen, focused.
    nodeListOf(model).store.getState().reveal(saved.id);
    if (connect) {
      await withPending(model.nodes, saved.id, 'connecting', () =>
        runAction(model, () => model.client.services.nodes.connect(saved.id), {
          failure: `Could not connect to ${saved.name}`,
          topic: nodeTopic(saved.id),
        }),
      );
    }
  };

  /**
   * One setting's text box. A setting the profile validates (`ProfileField`) shows its
   * error once touched; the SSH settings that take any text (user, identity, jump hosts)
   * have nothing to validate.
   */
  const textField = (
    id: ProfileField | 'user' | 'identity' | 'jump',
    label: string,
    text: {
      value: string;
      placeholder: string;
      mono?: boolean;
      help?: string;
      inputMode?: 'numeric' | 'decimal';
      /** A name, not a path or an address: the browser may check its spelling. */
      prose?: boolean;
      autofocus?: boolean;
    },
    onChange: (value: string) => void,
  ): ReactElement => {
    const validated = id !== 'user' && id !== 'identity' && id !== 'jump';
    const error = validated ? errorFor(id) : undefined;
    const errorId = `node-${id}-error`;
    return (
      <Field
        id={`node-${id}`}
        label={label}
        help={text.help}
        error={error}
        {...(validated && { errorId })}
      >
        <input
          id={`node-${id}`}
          className={text.mono === true ? 'input mono' : 'input'}
          {...(validated && {
            'aria-invalid': error !== undefined,
            'aria-describedby': error !== undefined ? errorId : undefined,
            onBlur: () => touch(id),
          })}
          data-autofocus={text.autofocus}
          inputMode={text.inputMode}
          value={text.value}
          placeholder={text.placeholder}
          spellCheck={text.prose === true ? undefined : false}
          onChange={(event) => onChange(event.target.value)}
        />
      </Field>
    );
  };

  return (
    <Dialog
      title={
        editing ? `Edit ${node.name}` : node !== undefined ? `Save ${node.name}` : 'Add a node'
      }
      onClose={onClose}
      onSubmit={() => void save(false)}
      footer={
        <FormActions submitLabel={saving ? 'Saving…' : 'Save'} onCancel={onClose} disabled={saving}>
          <Button disabled={saving} onClick={() => void save(true)}>
            Save and connect
          </Button>
        </FormActions>
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
        {textField(
          'name',
          'Name',
          {
            value: draft.name,
            placeholder: ssh ? 'node-1' : 'worker-1 containerd',
            prose: true,
            autofocus: true,
          },
          (name) => update({ name }),
        )}
        {ssh && (
          <>
            {textField(
              'host',
              'Host',
              {
                value: draft.host,
                placeholder: 'node-1',
                mono: true,
                help: 'A host name, an address, or an alias from ~/.ssh/config (its User, Port, IdentityFile and ProxyJump apply).',
              },
              (host) => update({ host }),
            )}
            {textField(
              'user',
              'User',
              { value: draft.user, placeholder: 'from ~/.ssh/config' },
              (user) => update({ user }),
            )}
            {textField(
              'port',
              'Port',
              { value: draft.port, placeholder: '22', inputMode: 'numeric' },
              (port) => update({ port }),
            )}
            {textField(
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
            {textField(
              'jump',
              'Jump hosts',
              {
                value: draft.proxyJump,
                placeholder: 'bastion, or user@jump1,jump2:2222',
                mono: true,
              },
              (proxyJump) => update({ proxyJump }),
            )}
          </>
        )}
        {textField(
          'endpoint',
          ssh ? 'Runtime socket on the node' : 'Runtime endpoint',
          {
            value: draft.endpoint,
            placeholder: ssh
              ? 'found by probing the usual sockets'
              : 'unix:///run/containerd/containerd.sock',
            mono: true,
            help: ssh
              ? 'Leave blank to probe containerd, CRI-O, cri-dockerd, k3s… sockets on the node.'
              : 'The CRI socket, as crictl --runtime-endpoint takes it. A bare path works too.',
          },
          (endpoint) => update({ endpoint }),
        )}
        {textField(
          'timeoutSeconds',
          'Call timeout (seconds)',
          {
            value: draft.timeoutSeconds,
            placeholder: 'default',
            inputMode: 'decimal',
            help: `How long one CRI call may take before Porthole gives up (1–${maxTimeoutSeconds}).`,
          },
          (timeoutSeconds) => update({ timeoutSeconds }),
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
