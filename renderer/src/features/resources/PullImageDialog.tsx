import { useRef, useState } from 'react';
import { useModel, useNodes } from '../../app/context';
import { CopyButton } from '../../app/CopyButton';
import { runAction } from '../../app/model';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { crictlFor } from './actions';
import { defaultNodeId, NodePicker } from './NodePicker';

/** Pull an image onto a node, with optional registry credentials (never stored). */
export function PullImageDialog({ onClose }: { onClose: () => void }) {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const [nodeId, setNodeId] = useState(() => defaultNodeId(nodes, scope));
  const [image, setImage] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const [pulling, setPulling] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);

  const reference = image.trim();
  const imageError =
    reference === ''
      ? 'Enter an image reference, e.g. docker.io/library/busybox:1.36.'
      : /\s/.test(reference)
        ? 'An image reference has no spaces.'
        : undefined;
  const credentialsError =
    username.trim() === '' && password !== '' ? 'A password needs a user name.' : undefined;
  const nodeError = nodeId === '' ? 'Connect a node first.' : undefined;

  const cancel = (): void => {
    abort.current?.abort();
    onClose();
  };

  const pull = async (): Promise<void> => {
    setTouched(true);
    if (imageError !== undefined || credentialsError !== undefined || nodeError !== undefined)
      return;
    if (pulling) return;
    setPulling(true);
    const controller = new AbortController();
    abort.current = controller;
    const auth = username.trim() === '' ? undefined : { username: username.trim(), password };
    const ref = await runAction(
      model,
      () => model.client.withSignal(controller.signal).lifecycle.pullImage(nodeId, reference, auth),
      {
        success: (imageRef) => `Pulled ${reference} (${imageRef.slice(0, 19)})`,
        failure: `Could not pull ${reference}`,
        topic: `pull:${nodeId}:${reference}`,
      },
    );
    setPulling(false);
    if (ref !== undefined) onClose();
  };

  const command = crictlFor(model, nodeId, {
    kind: 'pull-image',
    ref: reference === '' ? '<image>' : reference,
    ...(username.trim() !== '' && { username: username.trim() }),
  });

  return (
    <Dialog
      title="Pull an image"
      onClose={cancel}
      onSubmit={() => void pull()}
      footer={
        <FormActions
          submitLabel={pulling ? 'Pulling…' : 'Pull'}
          onCancel={cancel}
          disabled={pulling}
          working={pulling}
        />
      }
    >
      <div className="form-grid">
        <Field id="pull-node" label="Node" error={nodeError}>
          <NodePicker id="pull-node" value={nodeId} onChange={setNodeId} />
        </Field>
        <Field id="pull-image" label="Image" error={touched ? imageError : undefined}>
          <input
            id="pull-image"
            className="input mono"
            data-autofocus
            spellCheck={false}
            value={image}
            placeholder="registry.example.com/team/app:1.2.3"
            aria-invalid={touched && imageError !== undefined}
            onChange={(event) => setImage(event.target.value)}
            onBlur={() => setTouched(true)}
          />
        </Field>
        <details>
          <summary>Registry credentials (optional)</summary>
          <div className="field-row" style={{ marginTop: 8 }}>
            <Field id="pull-user" label="User name">
              <input
                id="pull-user"
                className="input"
                autoComplete="username"
                value={username}
                onChange={(event) => setUsername(event.target.value)}
              />
            </Field>
            <Field id="pull-password" label="Password or token">
              <input
                id="pull-password"
                className="input"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(event) => setPassword(event.target.value)}
              />
            </Field>
          </div>
          {credentialsError !== undefined && <div className="field-error">{credentialsError}</div>}
          <div className="field-help">
            Sent to the runtime for this pull only; Porthole keeps none.
          </div>
        </details>
        <div className="command-preview">
          <code>{command}</code>
          <CopyButton text={command} what="the crictl command" compact />
        </div>
      </div>
    </Dialog>
  );
}
