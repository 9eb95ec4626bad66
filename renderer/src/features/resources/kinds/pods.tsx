/** Pod sandboxes: their columns and detail parts. */
import { useMemo } from 'react';
import type { PodSandboxDetail } from '../../../../../shared/model';
import { useModel, useResourceActions } from '../../../app/context';
import { StateBadge } from '../../../ui/Badge';
import { Button } from '../../../ui/Button';
import { Prop, Props, Section } from '../../../ui/view/detail-parts';
import { confirmRemovePod, confirmStopPod } from '../actions';
import { NodeName } from '../cells';
import type { PodRow } from '../model';
import { showPodContainers } from '../navigation';
import { useAllRows } from '../use-rows';
import { workloadColumns } from './columns';
import { WorkloadActions, workloadKind } from './workloads';
import { ContainerLinks, IdValue, Metadata, OrNone, Timestamp } from './parts';

const columns = workloadColumns<PodRow>('pods', {
  name: { width: 160, grow: 2.2 },
  namespace: { width: 100, grow: 1.2 },
  afterStats: [
    {
      id: 'containers',
      priority: 50,
      header: 'Containers',
      width: 94,
      sortable: true,
      align: 'end',
      render: (row) => (
        <span title={`${row.runningCount} running of ${row.containerCount}`}>
          {row.runningCount}/{row.containerCount}
        </span>
      ),
    },
  ],
});

function PodActions({ row: pod }: { row: PodRow }) {
  const model = useModel();
  return (
    <WorkloadActions
      row={pod}
      contributed={useResourceActions().pods}
      related={
        <Button small icon="containers" onClick={() => showPodContainers(model, pod.key)}>
          Containers ({pod.containerCount})
        </Button>
      }
      running={pod.state === 'ready'}
      onStop={() => confirmStopPod(model, pod)}
      onRemove={() => confirmRemovePod(model, pod)}
      crictl={[{ action: { kind: 'inspect-pod', id: pod.id }, label: 'crictl inspectp' }]}
    />
  );
}

function PodBody({ row: pod, detail }: { row: PodRow; detail: PodSandboxDetail }) {
  const model = useModel();
  const containers = useAllRows('containers');
  const own = useMemo(
    () => containers.filter((row) => row.podKey === pod.key),
    [containers, pod.key],
  );
  return (
    <>
      <Section title="Status">
        <Props>
          <Prop label="State">
            <StateBadge state={detail.state} />
          </Prop>
          <Prop label="Namespace">{detail.namespace}</Prop>
          <Prop label="Node">
            <NodeName nodeId={pod.nodeId} />
          </Prop>
          <Prop label="Created">
            <Timestamp at={detail.createdAt} />
          </Prop>
          <Prop label="Attempt">{detail.attempt}</Prop>
          <Prop label="UID">
            <code>{detail.uid}</code>
          </Prop>
          <Prop label="Runtime handler">
            <OrNone value={detail.runtimeHandler} none="default" />
          </Prop>
          <Prop label="ID">
            <IdValue id={detail.id} what="the pod id" />
          </Prop>
        </Props>
      </Section>
      <Section title="Network">
        <Props>
          <Prop label="IP">
            <OrNone value={detail.ip} none="none" code />
          </Prop>
          <Prop label="Other IPs" when={detail.additionalIps.length > 0}>
            <code>{detail.additionalIps.join(', ')}</code>
          </Prop>
          {detail.namespaces !== undefined && (
            <Prop label="Namespaces">
              network: {detail.namespaces.network} · pid: {detail.namespaces.pid} · ipc:{' '}
              {detail.namespaces.ipc}
            </Prop>
          )}
        </Props>
      </Section>
      <Section
        title={`Containers (${own.length})`}
        action={
          own.length > 0 && (
            <Button small onClick={() => showPodContainers(model, pod.key)}>
              Show in table
            </Button>
          )
        }
      >
        <ContainerLinks
          containers={own}
          none="No containers in this pod."
          after={(container) => <span className="faint mono">{container.image}</span>}
        />
      </Section>
      <Metadata detail={detail} />
    </>
  );
}

export const podKind = workloadKind('pods', {
  title: 'Pods',
  one: 'Pod',
  nouns: ['pod', 'pods'],
  icon: 'pods',
  columns,
  Actions: PodActions,
  Body: PodBody,
});
