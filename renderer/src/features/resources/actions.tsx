import { useState } from 'react';
import { ConfirmDialog } from '../../app/ConfirmDialog';
import { runAction, type AppModel } from '../../app/model';
import { plural } from '../../ui/format';
import { crictlCommand, type CrictlAction, type CrictlTarget } from './crictl';
import { shortId, type ContainerRow, type ImageRow, type PodRow } from './model';

/** The crictl flags that reach the node a resource lives on. */
export function crictlTarget(model: AppModel, nodeId: string): CrictlTarget {
  const node = model.nodes.getState().nodes.find((candidate) => candidate.nodeId === nodeId);
  const profile = node?.profile;
  // crictl runs on the node: for an SSH node that is the socket on the node, not ssh://….
  const endpoint = node?.kind === 'ssh' ? node.runtimeEndpoint : node?.endpoint;
  return {
    endpoint: endpoint ?? 'unix:///run/containerd/containerd.sock',
    ...(profile !== undefined && 'imageEndpoint' in profile && profile.imageEndpoint !== undefined
      ? { imageEndpoint: profile.imageEndpoint }
      : {}),
    ...(profile?.timeoutMs !== undefined && { timeoutMs: profile.timeoutMs }),
  };
}

export function crictlFor(model: AppModel, nodeId: string, action: CrictlAction): string {
  return crictlCommand(crictlTarget(model, nodeId), action);
}

function nodeName(model: AppModel, nodeId: string): string {
  return model.nodes.getState().nodes.find((node) => node.nodeId === nodeId)?.name ?? nodeId;
}

const defaultGraceSeconds = 10;

/** The grace period a stop gives, as typed: valid or not, and the seconds to use. */
function useGracePeriod(): {
  readonly text: string;
  readonly setText: (text: string) => void;
  readonly valid: boolean;
  readonly seconds: number;
} {
  const [text, setText] = useState(String(defaultGraceSeconds));
  const value = Number(text);
  const valid = text.trim() !== '' && Number.isInteger(value) && value >= 0 && value <= 3600;
  return { text, setText, valid, seconds: valid ? value : defaultGraceSeconds };
}

function GracePeriodField({
  grace,
  help,
}: {
  grace: ReturnType<typeof useGracePeriod>;
  help: string;
}) {
  return (
    <div className="field" style={{ marginTop: 10 }}>
      <label htmlFor="grace-period">Grace period (seconds)</label>
      <input
        id="grace-period"
        className="input"
        inputMode="numeric"
        value={grace.text}
        aria-invalid={!grace.valid}
        aria-describedby="grace-period-help"
        onChange={(event) => grace.setText(event.target.value)}
        style={{ width: 120 }}
      />
      <div id="grace-period-help" className={grace.valid ? 'field-help' : 'field-error'}>
        {grace.valid ? help : 'A whole number of seconds, 0 to 3600.'}
      </div>
    </div>
  );
}

/** Why a stop can take the whole grace period: said wherever one is chosen. */
const waitedOut =
  'A process that ignores SIGTERM (as a shell or sleep running as PID 1 does) is waited out for the whole grace period.';

function StopContainerDialog({
  model,
  container,
  onClose,
}: {
  model: AppModel;
  container: ContainerRow;
  onClose: () => void;
}) {
  const grace = useGracePeriod();
  return (
    <ConfirmDialog
      title={`Stop container ${container.name}?`}
      confirmLabel="Stop"
      danger
      onClose={onClose}
      command={crictlFor(model, container.nodeId, {
        kind: 'stop-container',
        id: container.id,
        timeoutSeconds: grace.seconds,
      })}
      extra={
        <GracePeriodField
          grace={grace}
          help={`The runtime sends SIGTERM, then SIGKILL when this runs out. ${waitedOut}`}
        />
      }
      onConfirm={() =>
        runAction(
          model,
          () =>
            model.client.services.lifecycle.stopContainer(
              container.nodeId,
              container.id,
              grace.seconds,
            ),
          {
            success: `Stopped ${container.name}`,
            failure: `Could not stop ${container.name}`,
            topic: `stop:${container.key}`,
          },
        )
      }
    >
      <p>
        Stops <span className="resource-name">{container.name}</span> (
        <code>{shortId(container.id)}</code>) in pod {container.podName || 'unknown'} on{' '}
        {nodeName(model, container.nodeId)}. The kubelet, if one manages this pod, may start it
        again.
      </p>
    </ConfirmDialog>
  );
}

export function confirmStopContainer(model: AppModel, container: ContainerRow): void {
  model.ui.getState().openDialog({
    key: `stop-container:${container.key}`,
    render: (close) => <StopContainerDialog model={model} container={container} onClose={close} />,
  });
}

export function confirmRemoveContainer(model: AppModel, container: ContainerRow): void {
  model.ui.getState().openDialog({
    key: `remove-container:${container.key}`,
    render: (close) => (
      <ConfirmDialog
        title={`Remove container ${container.name}?`}
        confirmLabel="Remove"
        danger
        onClose={close}
        command={crictlFor(model, container.nodeId, { kind: 'remove-container', id: container.id })}
        onConfirm={() =>
          runAction(
            model,
            () => model.client.services.lifecycle.removeContainer(container.nodeId, container.id),
            {
              success: `Removed ${container.name}`,
              failure: `Could not remove ${container.name}`,
              topic: `remove:${container.key}`,
            },
          )
        }
      >
        <p>
          Removes <span className="resource-name">{container.name}</span> (
          <code>{shortId(container.id)}</code>) and its logs from{' '}
          {nodeName(model, container.nodeId)}.
          {container.state === 'running' &&
            ' It is still running: the runtime kills it first, without a grace period.'}
        </p>
      </ConfirmDialog>
    ),
  });
}

function StopPodDialog({
  model,
  pod,
  onClose,
}: {
  model: AppModel;
  pod: PodRow;
  onClose: () => void;
}) {
  const grace = useGracePeriod();
  return (
    <ConfirmDialog
      title={`Stop pod ${pod.name}?`}
      confirmLabel="Stop"
      danger
      onClose={onClose}
      command={crictlFor(model, pod.nodeId, { kind: 'stop-pod', id: pod.id })}
      extra={
        <GracePeriodField
          grace={grace}
          help={`Each running container gets SIGTERM, then SIGKILL when this runs out; then the pod's network is torn down. ${waitedOut}`}
        />
      }
      onConfirm={() =>
        runAction(
          model,
          () => model.client.services.lifecycle.stopPod(pod.nodeId, pod.id, grace.seconds),
          {
            success: `Stopped pod ${pod.name}`,
            failure: `Could not stop pod ${pod.name}`,
            topic: `stop:${pod.key}`,
          },
        )
      }
    >
      <p>
        Stops pod <span className="resource-name">{pod.name}</span> in namespace {pod.namespace} on{' '}
        {nodeName(model, pod.nodeId)}: its{' '}
        {pod.containerCount === 1 ? 'container is' : `${pod.containerCount} containers are`} stopped
        and its network torn down.
      </p>
    </ConfirmDialog>
  );
}

export function confirmStopPod(model: AppModel, pod: PodRow): void {
  model.ui.getState().openDialog({
    key: `stop-pod:${pod.key}`,
    render: (close) => <StopPodDialog model={model} pod={pod} onClose={close} />,
  });
}

export function confirmRemovePod(model: AppModel, pod: PodRow): void {
  model.ui.getState().openDialog({
    key: `remove-pod:${pod.key}`,
    render: (close) => (
      <ConfirmDialog
        title={`Remove pod ${pod.name}?`}
        confirmLabel="Remove"
        danger
        onClose={close}
        command={crictlFor(model, pod.nodeId, { kind: 'remove-pod', id: pod.id })}
        onConfirm={() =>
          runAction(model, () => model.client.services.lifecycle.removePod(pod.nodeId, pod.id), {
            success: `Removed pod ${pod.name}`,
            failure: `Could not remove pod ${pod.name}`,
            topic: `remove:${pod.key}`,
          })
        }
      >
        <p>
          Removes pod <span className="resource-name">{pod.name}</span> (
          <code>{shortId(pod.id)}</code>)
          {pod.containerCount > 0
            ? ` and its ${pod.containerCount === 1 ? 'container' : `${pod.containerCount} containers`}`
            : ''}{' '}
          from {nodeName(model, pod.nodeId)}.
          {pod.state === 'ready' &&
            ' It is still ready: its containers are killed first, without a grace period.'}
        </p>
      </ConfirmDialog>
    ),
  });
}

/** What to hand RemoveImage and crictl rmi: a tag people recognise, else the id. */
export function imageReference(image: ImageRow): string {
  return image.repoTags[0] ?? image.id;
}

export function confirmRemoveImage(model: AppModel, image: ImageRow): void {
  model.ui.getState().openDialog({
    key: `remove-image:${image.key}`,
    render: (close) => (
      <ConfirmDialog
        title={`Remove image ${image.displayName}?`}
        confirmLabel="Remove"
        danger
        onClose={close}
        command={crictlFor(model, image.nodeId, { kind: 'remove-image', ref: image.id })}
        onConfirm={() =>
          runAction(
            model,
            () => model.client.services.lifecycle.removeImage(image.nodeId, image.id),
            {
              success: `Removed image ${image.displayName}`,
              failure: `Could not remove image ${image.displayName}`,
              topic: `remove:${image.key}`,
            },
          )
        }
      >
        <p>
          Removes <span className="resource-name">{image.displayName}</span>
          {image.repoTags.length > 1 &&
            ` (and its ${image.repoTags.length - 1} other tags)`} from{' '}
          {nodeName(model, image.nodeId)}.
        </p>
        {image.usedBy > 0 && (
          <p className="field-error">
            {image.usedBy === 1 ? 'A container uses' : `${image.usedBy} containers use`} this image:
            the runtime may refuse until they are removed.
          </p>
        )}
        {image.sandboxes > 0 && (
          <p className="field-error">
            {plural(image.sandboxes, 'pod sandbox', 'pod sandboxes')} on this node run from it (the
            runtime&rsquo;s sandbox image): new pods need it.
          </p>
        )}
        {image.pinned && (
          <p className="field-error">The runtime pinned this image (e.g. the pause image).</p>
        )}
      </ConfirmDialog>
    ),
  });
}
