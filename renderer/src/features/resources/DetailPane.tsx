import { useMemo, useRef, type ReactNode } from 'react';
import type { ContainerDetail, Image, PodSandboxDetail } from '../../../../shared/model';
import { useModel, useResourceActions, useResources, useResourceViews } from '../../app/context';
import type { ResourceAction } from '../../app/registry';
import { CopyButton } from '../../app/CopyButton';
import { StateBadge } from '../../ui/Badge';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatAge, formatBytes, plural } from '../../ui/format';
import { Icon } from '../../ui/icons';
import { JsonTree } from '../../ui/JsonTree';
import { jsonForClipboard } from '../../ui/json';
import { KeyValueTable } from '../../ui/KeyValueTable';
import { useNow } from '../../ui/clock';
import {
  confirmRemoveContainer,
  confirmRemoveImage,
  confirmRemovePod,
  confirmStopContainer,
  confirmStopPod,
  crictlFor,
} from './actions';
import { Age, NodeName } from './cells';
import type { ContainerRow, ImageRow, PodRow, ResourceKind, RowsByKind } from './model';
import { shortId } from './model';
import { showContainer, showPod, showPodContainers } from './navigation';
import { useAllRows } from './use-rows';
import { useResourceDetail, type DetailState, type DetailsByKind } from './use-detail';

const kindTitles: Readonly<Record<ResourceKind, string>> = {
  pods: 'Pod',
  containers: 'Container',
  images: 'Image',
};

function Section({
  title,
  children,
  action,
}: {
  title: string;
  children: ReactNode;
  action?: ReactNode;
}) {
  return (
    <section className="section" aria-label={title}>
      <h3 className="section-title">
        {title}
        {action}
      </h3>
      {children}
    </section>
  );
}

function Timestamp({ at }: { at: number | undefined }) {
  const now = useNow();
  if (at === undefined || at <= 0) return <span className="faint">—</span>;
  return (
    <span title={new Date(at).toISOString()}>
      {new Date(at).toLocaleString()} <span className="faint">({formatAge(at, now)} ago)</span>
    </span>
  );
}

function IdValue({ id, what }: { id: string; what: string }) {
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 4, maxWidth: '100%' }}>
      <code style={{ overflowWrap: 'anywhere' }}>{id}</code>
      <CopyButton text={id} what={what} compact />
    </span>
  );
}

function VerboseInfo({ info, name }: { info: Readonly<Record<string, unknown>>; name: string }) {
  const empty = Object.keys(info).length === 0;
  return (
    <Section
      title="Runtime info"
      action={
        !empty && (
          <CopyButton
            text={() => jsonForClipboard(info)}
            what="the runtime info as JSON"
            label="Copy JSON"
          />
        )
      }
    >
      {empty ? (
        <p className="faint">The runtime reported no verbose info.</p>
      ) : (
        <JsonTree value={info} label={`Runtime info of ${name}`} />
      )}
    </Section>
  );
}

/** Loading / refreshing / failed around a detail body. */
function DetailBody<K extends ResourceKind>({
  detail,
  children,
}: {
  detail: DetailState<K> | undefined;
  children: (value: DetailsByKind[K]) => ReactNode;
}) {
  if (detail === undefined) return null;
  const value =
    detail.state === 'loaded'
      ? detail.detail
      : detail.state === 'failed'
        ? detail.previous
        : undefined;
  return (
    <>
      {detail.state === 'failed' && (
        <ErrorBanner error={detail.error} title="Could not read the details" />
      )}
      {value === undefined && detail.state === 'loading' && (
        <div className="empty-state" role="status">
          <span className="spinner" />
          Reading status from the runtime…
        </div>
      )}
      {value !== undefined && children(value)}
    </>
  );
}

function PodBody({ pod, detail }: { pod: PodRow; detail: PodSandboxDetail }) {
  const model = useModel();
  const containers = useAllRows('containers');
  const own = useMemo(
    () => containers.filter((row) => row.podKey === pod.key),
    [containers, pod.key],
  );
  return (
    <>
      <Section title="Status">
        <dl className="props">
          <dt>State</dt>
          <dd>
            <StateBadge state={detail.state} />
          </dd>
          <dt>Namespace</dt>
          <dd>{detail.namespace}</dd>
          <dt>Node</dt>
          <dd>
            <NodeName nodeId={pod.nodeId} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Timestamp at={detail.createdAt} />
          </dd>
          <dt>Attempt</dt>
          <dd>{detail.attempt}</dd>
          <dt>UID</dt>
          <dd>
            <code>{detail.uid}</code>
          </dd>
          <dt>Runtime handler</dt>
          <dd>
            {detail.runtimeHandler === '' ? (
              <span className="faint">default</span>
            ) : (
              detail.runtimeHandler
            )}
          </dd>
          <dt>ID</dt>
          <dd>
            <IdValue id={detail.id} what="the pod id" />
          </dd>
        </dl>
      </Section>
      <Section title="Network">
        <dl className="props">
          <dt>IP</dt>
          <dd>
            {detail.ip === undefined || detail.ip === '' ? (
              <span className="faint">none</span>
            ) : (
              <code>{detail.ip}</code>
            )}
          </dd>
          {detail.additionalIps.length > 0 && (
            <>
              <dt>Other IPs</dt>
              <dd>
                <code>{detail.additionalIps.join(', ')}</code>
              </dd>
            </>
          )}
          {detail.namespaces !== undefined && (
            <>
              <dt>Namespaces</dt>
              <dd>
                network: {detail.namespaces.network} · pid: {detail.namespaces.pid} · ipc:{' '}
                {detail.namespaces.ipc}
              </dd>
            </>
          )}
        </dl>
      </Section>
      <Section
        title={`Containers (${own.length})`}
        action={
          own.length > 0 && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => showPodContainers(model, pod.key)}
            >
              Show in table
            </button>
          )
        }
      >
        {own.length === 0 ? (
          <p className="faint">No containers in this pod.</p>
        ) : (
          <ul className="list-plain">
            {own.map((container) => (
              <li key={container.key} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                <StateBadge state={container.state} />
                <button
                  type="button"
                  className="link"
                  onClick={() => showContainer(model, container.key)}
                >
                  {container.name}
                </button>
                <span className="faint mono">{container.image}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Labels">
        <KeyValueTable entries={detail.labels} label="Labels" />
      </Section>
      <Section title="Annotations">
        <KeyValueTable entries={detail.annotations} label="Annotations" />
      </Section>
      <VerboseInfo info={detail.info} name={detail.name} />
    </>
  );
}

function ContainerBody({
  container,
  detail,
}: {
  container: ContainerRow;
  detail: ContainerDetail;
}) {
  const model = useModel();
  return (
    <>
      <Section title="Status">
        <dl className="props">
          <dt>State</dt>
          <dd>
            <StateBadge state={detail.state} />
            {detail.exitCode !== undefined && detail.state === 'exited' && (
              <span className={detail.exitCode === 0 ? 'muted' : 'field-error'}>
                {' '}
                exit code {detail.exitCode}
              </span>
            )}
          </dd>
          {detail.reason !== '' && (
            <>
              <dt>Reason</dt>
              <dd>{detail.reason}</dd>
            </>
          )}
          {detail.message !== '' && (
            <>
              <dt>Message</dt>
              <dd>{detail.message}</dd>
            </>
          )}
          <dt>Pod</dt>
          <dd>
            {container.podName === '' ? (
              <code>{shortId(container.podSandboxId)}</code>
            ) : (
              <button
                type="button"
                className="link"
                onClick={() => showPod(model, container.podKey)}
              >
                {container.podName}
              </button>
            )}
            {container.namespace !== '' && <span className="faint"> in {container.namespace}</span>}
          </dd>
          <dt>Node</dt>
          <dd>
            <NodeName nodeId={container.nodeId} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Timestamp at={detail.createdAt} />
          </dd>
          <dt>Started</dt>
          <dd>
            <Timestamp at={detail.startedAt} />
          </dd>
          {detail.finishedAt !== undefined && detail.finishedAt > 0 && (
            <>
              <dt>Finished</dt>
              <dd>
                <Timestamp at={detail.finishedAt} />
              </dd>
            </>
          )}
          <dt>Attempt</dt>
          <dd>{detail.attempt}</dd>
          {detail.tty !== undefined && (
            <>
              <dt>TTY</dt>
              <dd>{detail.tty ? 'yes' : 'no'}</dd>
            </>
          )}
          <dt>ID</dt>
          <dd>
            <IdValue id={detail.id} what="the container id" />
          </dd>
        </dl>
      </Section>
      <Section title="Image">
        <dl className="props">
          <dt>Image</dt>
          <dd>
            <code>{detail.image}</code>
          </dd>
          <dt>Resolved</dt>
          <dd>
            <code>{detail.imageRef}</code>
          </dd>
        </dl>
      </Section>
      <Section title={`Mounts (${detail.mounts.length})`}>
        {detail.mounts.length === 0 ? (
          <p className="faint">No mounts.</p>
        ) : (
          <table className="kv-table" aria-label="Mounts">
            <thead>
              <tr>
                <th>Container path</th>
                <th>Host path</th>
              </tr>
            </thead>
            <tbody>
              {detail.mounts.map((mount) => (
                <tr key={mount.containerPath}>
                  <td>
                    {mount.containerPath}
                    {mount.readonly && <span className="faint"> (ro)</span>}
                  </td>
                  <td>
                    {mount.hostPath}
                    {mount.propagation !== 'private' && (
                      <span className="faint"> · {mount.propagation}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Logs">
        <dl className="props">
          <dt>Log path</dt>
          <dd>
            {detail.logPath === '' ? (
              <span className="faint">none</span>
            ) : (
              <code>{detail.logPath}</code>
            )}
          </dd>
        </dl>
      </Section>
      <Section title="Labels">
        <KeyValueTable entries={detail.labels} label="Labels" />
      </Section>
      <Section title="Annotations">
        <KeyValueTable entries={detail.annotations} label="Annotations" />
      </Section>
      <VerboseInfo info={detail.info} name={detail.name} />
    </>
  );
}

function ImageBody({ image, detail }: { image: ImageRow; detail: Image }) {
  const model = useModel();
  const containers = useAllRows('containers');
  const users = useMemo(
    () =>
      containers.filter(
        (row) =>
          row.nodeId === image.nodeId &&
          (row.imageRef === image.id || image.repoTags.includes(row.image)),
      ),
    [containers, image],
  );
  return (
    <>
      <Section title="Image">
        <dl className="props">
          <dt>Tags</dt>
          <dd>
            {detail.repoTags.length === 0 ? (
              <span className="faint">untagged</span>
            ) : (
              <div className="chips">
                {detail.repoTags.map((tag) => (
                  <span key={tag} className="chip" title={tag}>
                    {tag}
                  </span>
                ))}
              </div>
            )}
          </dd>
          <dt>Digests</dt>
          <dd>
            {detail.repoDigests.length === 0 ? (
              <span className="faint">none</span>
            ) : (
              detail.repoDigests.map((digest) => (
                <div key={digest}>
                  <code>{digest}</code>
                </div>
              ))
            )}
          </dd>
          <dt>Size</dt>
          <dd>{formatBytes(detail.sizeBytes)}</dd>
          <dt>User</dt>
          <dd>{detail.user ?? <span className="faint">not set (root)</span>}</dd>
          <dt>Pinned</dt>
          <dd>{detail.pinned ? 'yes — the runtime keeps it (e.g. the pause image)' : 'no'}</dd>
          <dt>Node</dt>
          <dd>
            <NodeName nodeId={image.nodeId} />
          </dd>
          <dt>ID</dt>
          <dd>
            <IdValue id={detail.id} what="the image id" />
          </dd>
        </dl>
      </Section>
      <Section title={`Used by (${users.length + image.sandboxes})`}>
        {image.sandboxes > 0 && (
          <p>
            {plural(image.sandboxes, 'pod sandbox', 'pod sandboxes')}: it is the image this
            node&rsquo;s runtime runs every pod sandbox from (the pause image).
          </p>
        )}
        {users.length === 0 ? (
          <p className="faint">
            {image.sandboxes > 0
              ? 'No container names it.'
              : 'No container or pod sandbox on this node uses this image.'}
          </p>
        ) : (
          <ul className="list-plain">
            {users.map((container) => (
              <li key={container.key} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                <StateBadge state={container.state} />
                <button
                  type="button"
                  className="link"
                  onClick={() => showContainer(model, container.key)}
                >
                  {container.name}
                </button>
                <span className="faint">
                  in {container.podName || shortId(container.podSandboxId)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}

/** The actions other features contribute (terminals, logs, forwards…), as buttons. */
function ContributedActions<Row>({
  row,
  actions,
}: {
  row: Row;
  actions: readonly ResourceAction<Row>[];
}) {
  const model = useModel();
  return actions.map((action) => {
    const unavailable = action.unavailable?.(row);
    return (
      <button
        key={action.id}
        type="button"
        className="btn btn-small"
        disabled={unavailable !== undefined}
        title={unavailable}
        onClick={() => action.run(model, row)}
      >
        {action.icon !== undefined && <Icon name={action.icon} size={14} />}
        {action.title}
      </button>
    );
  });
}

function PodActions({ pod }: { pod: PodRow }) {
  const model = useModel();
  const contributed = useResourceActions().pods;
  return (
    <>
      <ContributedActions row={pod} actions={contributed} />
      <button
        type="button"
        className="btn btn-small"
        onClick={() => showPodContainers(model, pod.key)}
      >
        <Icon name="containers" size={14} />
        Containers ({pod.containerCount})
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={pod.state !== 'ready'}
        onClick={() => confirmStopPod(model, pod)}
      >
        <Icon name="stop" size={14} />
        Stop
      </button>
      <button type="button" className="btn btn-small" onClick={() => confirmRemovePod(model, pod)}>
        <Icon name="trash" size={14} />
        Remove
      </button>
      <CopyButton
        text={crictlFor(model, pod.nodeId, { kind: 'inspect-pod', id: pod.id })}
        what="the crictl command"
        label="crictl inspectp"
      />
    </>
  );
}

function ContainerActions({ container }: { container: ContainerRow }) {
  const model = useModel();
  const contributed = useResourceActions().containers;
  return (
    <>
      <ContributedActions row={container} actions={contributed} />
      <button
        type="button"
        className="btn btn-small"
        onClick={() => showPod(model, container.podKey)}
      >
        <Icon name="pods" size={14} />
        Pod
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={container.state !== 'running'}
        onClick={() => confirmStopContainer(model, container)}
      >
        <Icon name="stop" size={14} />
        Stop
      </button>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => confirmRemoveContainer(model, container)}
      >
        <Icon name="trash" size={14} />
        Remove
      </button>
      <CopyButton
        text={crictlFor(model, container.nodeId, { kind: 'inspect-container', id: container.id })}
        what="the crictl command"
        label="crictl inspect"
      />
      <CopyButton
        text={crictlFor(model, container.nodeId, { kind: 'logs', id: container.id })}
        what="the crictl command"
        label="crictl logs"
      />
      <CopyButton
        text={crictlFor(model, container.nodeId, {
          kind: 'exec',
          id: container.id,
          command: ['sh'],
        })}
        what="the crictl command"
        label="crictl exec"
      />
    </>
  );
}

function ImageActions({ image }: { image: ImageRow }) {
  const model = useModel();
  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => confirmRemoveImage(model, image)}
      >
        <Icon name="trash" size={14} />
        Remove
      </button>
      <CopyButton
        text={crictlFor(model, image.nodeId, { kind: 'inspect-image', ref: image.id })}
        what="the crictl command"
        label="crictl inspecti"
      />
    </>
  );
}

function titleOf(kind: ResourceKind, row: RowsByKind[ResourceKind]): string {
  if (kind === 'images') return (row as ImageRow).displayName;
  return (row as PodRow | ContainerRow).name;
}

/** Dispatches on the kind; each branch narrows the row and detail types together. */
function PaneContent({ kind, row }: { kind: ResourceKind; row: RowsByKind[ResourceKind] }) {
  switch (kind) {
    case 'pods':
      return <PodPane pod={row as PodRow} />;
    case 'containers':
      return <ContainerPane container={row as ContainerRow} />;
    case 'images':
      return <ImagePane image={row as ImageRow} />;
  }
}

/** A resource's actions above its detail (loading, loaded, or failed with what it last had). */
function PaneLayout<K extends ResourceKind>({
  actions,
  detail,
  body,
}: {
  actions: ReactNode;
  detail: DetailState<K> | undefined;
  body: (value: DetailsByKind[K]) => ReactNode;
}) {
  return (
    <>
      <div className="detail-actions">{actions}</div>
      <div className="detail-body">
        <DetailBody<K> detail={detail}>{body}</DetailBody>
      </div>
    </>
  );
}

function PodPane({ pod }: { pod: PodRow }) {
  const item = useResources((state) => state.index.pods.get(pod.key));
  const detail = useResourceDetail('pods', item);
  return (
    <PaneLayout<'pods'>
      actions={<PodActions pod={pod} />}
      detail={detail}
      body={(value) => <PodBody pod={pod} detail={value} />}
    />
  );
}

function ContainerPane({ container }: { container: ContainerRow }) {
  const item = useResources((state) => state.index.containers.get(container.key));
  const detail = useResourceDetail('containers', item);
  return (
    <PaneLayout<'containers'>
      actions={<ContainerActions container={container} />}
      detail={detail}
      body={(value) => <ContainerBody container={container} detail={value} />}
    />
  );
}

function ImagePane({ image }: { image: ImageRow }) {
  const item = useResources((state) => state.index.images.get(image.key));
  const detail = useResourceDetail('images', item);
  return (
    <PaneLayout<'images'>
      actions={<ImageActions image={image} />}
      detail={detail}
      body={(value) => <ImageBody image={image} detail={value} />}
    />
  );
}

/**
 * The side panel for the open resource. When the resource disappears (removed here or
 * elsewhere) the pane says so instead of silently showing stale data.
 */
export function DetailPane({ kind, width }: { kind: ResourceKind; width: number }) {
  const detailKey = useResourceViews((state) =>
    state.detail?.kind === kind ? state.detail.key : undefined,
  );
  const closeDetail = useResourceViews((state) => state.closeDetail);
  const rows = useAllRows(kind);
  const row = useMemo(
    () =>
      detailKey === undefined ? undefined : rows.find((candidate) => candidate.key === detailKey),
    [rows, detailKey],
  );
  // Remember the last row seen, so a resource that disappears keeps its name on screen.
  const lastSeen = useRef<{ key: string; title: string } | undefined>(undefined);
  if (row !== undefined && detailKey !== undefined) {
    lastSeen.current = { key: detailKey, title: titleOf(kind, row) };
  }
  if (detailKey === undefined) return null;
  const title =
    row !== undefined
      ? titleOf(kind, row)
      : lastSeen.current?.key === detailKey
        ? lastSeen.current.title
        : kindTitles[kind];
  return (
    <aside className="detail" style={{ width }} aria-label={`${kindTitles[kind]} details`}>
      <header className="detail-header">
        <div className="detail-heading">
          <div className="detail-kind">{kindTitles[kind]}</div>
          <h2 className="detail-title" title={title}>
            {title}
          </h2>
          {row !== undefined && (
            <div className="muted" style={{ fontSize: 12 }}>
              {'createdAt' in row && (
                <>
                  <Age since={row.createdAt} /> old ·{' '}
                </>
              )}
              <NodeName nodeId={row.nodeId} />
            </div>
          )}
        </div>
        <button
          type="button"
          className="btn btn-small btn-ghost btn-icon"
          aria-label="Close details"
          title="Close (Esc)"
          onClick={closeDetail}
        >
          <Icon name="close" size={14} />
        </button>
      </header>
      {row === undefined ? (
        <InfoBanner tone="warn">
          This {kindTitles[kind].toLowerCase()} no longer exists on its node: it was removed, or its
          node was disconnected.
        </InfoBanner>
      ) : (
        <PaneContent kind={kind} row={row} />
      )}
    </aside>
  );
}
