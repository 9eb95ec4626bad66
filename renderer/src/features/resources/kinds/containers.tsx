/** Containers: their columns and detail parts. */
import type { ContainerDetail } from '../../../../../shared/model';
import { useModel, useResourceActions } from '../../../app/context';
import { StateBadge } from '../../../ui/Badge';
import { Button } from '../../../ui/Button';
import { StaticTable, type StaticColumn } from '../../../ui/table/StaticTable';
import { Prop, Props, Section } from '../../../ui/view/detail-parts';
import { confirmRemoveContainer, confirmStopContainer } from '../actions';
import { NodeName, PodLink } from '../cells';
import { shortId, type ContainerRow } from '../model';
import { showPod } from '../navigation';
import { workloadColumns } from './columns';
import { WorkloadActions, workloadKind } from './workloads';
import { IdValue, Metadata, OrNone, Timestamp } from './parts';

const columns = workloadColumns<ContainerRow>('containers', {
  name: { width: 130, grow: 1.6 },
  afterName: [
    {
      id: 'pod',
      priority: 45,
      header: 'Pod',
      width: 130,
      grow: 1.6,
      sortable: true,
      render: (row) => <PodLink podKey={row.podKey} name={row.podName} />,
    },
  ],
  namespace: { width: 90, grow: 1 },
  afterNamespace: [
    {
      id: 'image',
      priority: 40,
      header: 'Image',
      width: 140,
      grow: 1.8,
      sortable: true,
      render: (row) => (
        <span className="cell-sub" title={row.image}>
          {row.image}
        </span>
      ),
    },
  ],
});

type Mount = ContainerDetail['mounts'][number];

const mountColumns: readonly StaticColumn<Mount>[] = [
  {
    header: 'Container path',
    render: (mount) => (
      <>
        {mount.containerPath}
        {mount.readonly && <span className="faint"> (ro)</span>}
      </>
    ),
  },
  {
    header: 'Host path',
    render: (mount) => (
      <>
        {mount.hostPath}
        {mount.propagation !== 'private' && <span className="faint"> · {mount.propagation}</span>}
      </>
    ),
  },
];

function ContainerActions({ row: container }: { row: ContainerRow }) {
  const model = useModel();
  const { id } = container;
  return (
    <WorkloadActions
      row={container}
      contributed={useResourceActions().containers}
      related={
        <Button small icon="pods" onClick={() => showPod(model, container.podKey)}>
          Pod
        </Button>
      }
      running={container.state === 'running'}
      onStop={() => confirmStopContainer(model, container)}
      onRemove={() => confirmRemoveContainer(model, container)}
      crictl={[
        { action: { kind: 'inspect-container', id }, label: 'crictl inspect' },
        { action: { kind: 'logs', id }, label: 'crictl logs' },
        { action: { kind: 'exec', id, command: ['sh'] }, label: 'crictl exec' },
      ]}
    />
  );
}

function ContainerBody({ row: container, detail }: { row: ContainerRow; detail: ContainerDetail }) {
  const model = useModel();
  const finished = detail.finishedAt !== undefined && detail.finishedAt > 0;
  return (
    <>
      <Section title="Status">
        <Props>
          <Prop label="State">
            <StateBadge state={detail.state} />
            {detail.exitCode !== undefined && detail.state === 'exited' && (
              <span className={detail.exitCode === 0 ? 'muted' : 'field-error'}>
                {' '}
                exit code {detail.exitCode}
              </span>
            )}
          </Prop>
          <Prop label="Reason" when={detail.reason !== ''}>
            {detail.reason}
          </Prop>
          <Prop label="Message" when={detail.message !== ''}>
            {detail.message}
          </Prop>
          <Prop label="Pod">
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
          </Prop>
          <Prop label="Node">
            <NodeName nodeId={container.nodeId} />
          </Prop>
          <Prop label="Created">
            <Timestamp at={detail.createdAt} />
          </Prop>
          <Prop label="Started">
            <Timestamp at={detail.startedAt} />
          </Prop>
          <Prop label="Finished" when={finished}>
            <Timestamp at={detail.finishedAt} />
          </Prop>
          <Prop label="Attempt">{detail.attempt}</Prop>
          {detail.tty !== undefined && <Prop label="TTY">{detail.tty ? 'yes' : 'no'}</Prop>}
          <Prop label="ID">
            <IdValue id={detail.id} what="the container id" />
          </Prop>
        </Props>
      </Section>
      <Section title="Image">
        <Props>
          <Prop label="Image">
            <code>{detail.image}</code>
          </Prop>
          <Prop label="Resolved">
            <code>{detail.imageRef}</code>
          </Prop>
        </Props>
      </Section>
      <Section title={`Mounts (${detail.mounts.length})`}>
        {detail.mounts.length === 0 ? (
          <p className="faint">No mounts.</p>
        ) : (
          <StaticTable
            label="Mounts"
            className="kv-table"
            columns={mountColumns}
            rows={detail.mounts}
            rowKey={(mount) => mount.containerPath}
          />
        )}
      </Section>
      <Section title="Logs">
        <Props>
          <Prop label="Log path">
            <OrNone value={detail.logPath} none="none" code />
          </Prop>
        </Props>
      </Section>
      <Metadata detail={detail} />
    </>
  );
}

export const containerKind = workloadKind('containers', {
  title: 'Containers',
  one: 'Container',
  nouns: ['container', 'containers'],
  icon: 'containers',
  columns,
  Actions: ContainerActions,
  Body: ContainerBody,
});
