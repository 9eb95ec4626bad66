import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { StatsSample } from '../../../../shared/model';
import { useModel, useNodes, useResources } from '../../app/context';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { Icon } from '../../ui/icons';
import { Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { NoNodeState } from '../nodes/NoNodeState';
import { isFollowed } from '../nodes/nodes-store';
import { NodeDownBanner } from '../nodes/outage';
import { NodePicker, defaultNodeId } from '../resources/NodePicker';
import { resourceKey } from '../resources/model';
import { useChartTheme } from './chart-theme';
import { formatClock, formatCpuTick, formatMemory, memoryIncrs } from './format';
import { chartColumns, knownUsages, topIds, usageById, type StatsKind } from './series';
import { StatsLegend, type LegendEntry } from './StatsLegend';
import { statsStoreOf, type NodeStats } from './stats-store';
import { TimeChart, type ChartSeries } from './TimeChart';
import './stats.css';

/** Charted by default: the busiest few. */
const defaultCharted = 5;

const kindNames: Readonly<Record<StatsKind, { one: string; many: string }>> = {
  containers: { one: 'container', many: 'containers' },
  pods: { one: 'pod', many: 'pods' },
};

function useStats() {
  return statsStoreOf(useModel());
}

/** "2 s", "5 min". */
function formatSpan(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

function StatsToolbar({ nodeId, stats }: { nodeId: string; stats: NodeStats | undefined }) {
  const store = useStats();
  const kind = useStore(store, (state) => state.view.kind);
  return (
    <Toolbar role="toolbar" label="Stats">
      <label htmlFor="stats-node" className="muted">
        Node
      </label>
      <NodePicker
        id="stats-node"
        withDown
        value={nodeId}
        onChange={(value) => store.setView({ nodeId: value, selected: {}, focusId: undefined })}
      />
      <div className="stats-kind" role="group" aria-label="Show">
        {(['containers', 'pods'] as const).map((candidate) => (
          <button
            key={candidate}
            type="button"
            className={`btn btn-small${candidate === kind ? ' active' : ''}`}
            aria-pressed={candidate === kind}
            onClick={() => store.setView({ kind: candidate, focusId: undefined })}
          >
            <Icon name={candidate} size={14} />
            {candidate === 'containers' ? 'Containers' : 'Pods'}
          </button>
        ))}
      </div>
      {stats?.loaded === true && (
        <ToolbarStatus live={false}>
          Every {formatSpan(stats.intervalMs)} · last {formatSpan(stats.historyMs)}
        </ToolbarStatus>
      )}
    </Toolbar>
  );
}

/** The charts and their legend for one node's containers or pods. */
function StatsCharts({
  nodeId,
  kind,
  samples,
}: {
  nodeId: string;
  kind: StatsKind;
  samples: readonly StatsSample[];
}) {
  const store = useStats();
  const selected = useStore(store, (state) => state.view.selected[kind]);
  const focusId = useStore(store, (state) => state.view.focusId);
  const podIndex = useResources((state) => state.index.pods);
  const theme = useChartTheme();
  const [hover, setHover] = useState<number | undefined>(undefined);
  // The legend is the charts' text alternative: each chart points at it.
  const legendId = useId();

  const known = useMemo(() => knownUsages(samples, kind), [samples, kind]);
  const charted = useMemo(
    () => (selected ?? topIds(samples, kind, defaultCharted)).filter((id) => known.has(id)),
    [selected, samples, kind, known],
  );
  const maxCharted = theme.palette.length;

  const labelOf = useCallback(
    (id: string): { label: string; sub: string } => {
      const usage = known.get(id);
      if (usage === undefined) return { label: id.slice(0, 13), sub: '' };
      if ('containerId' in usage) {
        const pod =
          usage.podSandboxId === undefined
            ? undefined
            : podIndex.get(resourceKey(nodeId, usage.podSandboxId));
        return { label: usage.name, sub: pod?.name ?? '' };
      }
      return {
        label: usage.name,
        sub:
          usage.source === 'containers'
            ? `${usage.namespace} · sum of containers`
            : usage.namespace,
      };
    },
    [known, podIndex, nodeId],
  );

  const series: ChartSeries[] = useMemo(
    () =>
      charted.map((id, index) => ({
        id,
        label: labelOf(id).label,
        color: theme.palette[index % theme.palette.length] ?? 'currentColor',
      })),
    [charted, labelOf, theme],
  );
  const cpu = useMemo(() => chartColumns(samples, kind, charted, 'cpu'), [samples, kind, charted]);
  const memory = useMemo(
    () => chartColumns(samples, kind, charted, 'memory'),
    [samples, kind, charted],
  );

  // Values at the hovered sample, else the latest one.
  const shown = samples[hover ?? samples.length - 1];
  const shownValues = shown === undefined ? undefined : usageById(shown, kind);
  const colors = new Map(series.map((entry) => [entry.id, entry.color]));
  // Pods whose stats can't be read are listed all the same, with why.
  const unreadable = kind === 'pods' ? (samples[samples.length - 1]?.unreadablePods ?? []) : [];
  const entries: LegendEntry[] = [...known.keys()]
    .filter((id) => !unreadable.some((pod) => pod.podSandboxId === id))
    .map((id) => {
      const value = shownValues?.get(id);
      const color = colors.get(id);
      return {
        id,
        ...labelOf(id),
        ...(color !== undefined && { color }),
        ...(value?.cpuPercent !== undefined && { cpuPercent: value.cpuPercent }),
        ...(value?.memoryWorkingSetBytes !== undefined && {
          memoryBytes: value.memoryWorkingSetBytes,
        }),
      };
    })
    .concat(
      unreadable.map((pod) => ({
        id: pod.podSandboxId,
        label: pod.name,
        sub: pod.namespace,
        unreadable: { reason: pod.reason, detail: pod.detail },
      })),
    )
    .sort((a, b) => a.label.localeCompare(b.label) || a.sub.localeCompare(b.sub));

  const toggle = (id: string, on: boolean): void => {
    const next = on ? [...charted, id] : charted.filter((candidate) => candidate !== id);
    store.setView({ selected: { ...store.getState().view.selected, [kind]: next } });
  };

  return (
    <div className="stats-body">
      <div className="stats-charts">
        {charted.length === 0 && known.size === 0 && unreadable.length > 0 ? (
          <EmptyState icon="stats" title="No pod stats to chart">
            The runtime can't read the stats of {unreadable.length === 1 ? 'the pod' : 'the pods'}{' '}
            listed on the right; the list says why.
          </EmptyState>
        ) : charted.length === 0 ? (
          <EmptyState icon="stats" title={`No ${kindNames[kind].one} charted`}>
            Tick one in the list to chart it.
          </EmptyState>
        ) : (
          <>
            <TimeChart
              title="CPU (% of one core)"
              columns={cpu}
              series={series}
              format={formatCpuTick}
              minTop={5}
              theme={theme}
              syncKey="porthole-stats"
              onHover={setHover}
              describedBy={legendId}
            />
            <TimeChart
              title="Memory (working set)"
              columns={memory}
              series={series}
              format={formatMemory}
              minTop={1024 * 1024}
              yIncrs={memoryIncrs}
              theme={theme}
              syncKey="porthole-stats"
              onHover={setHover}
              describedBy={legendId}
            />
          </>
        )}
      </div>
      <aside className="stats-side" aria-label={`${kindNames[kind].many} legend`}>
        <div className="stats-side-actions">
          <Button
            small
            disabled={selected === undefined}
            title={`Chart the ${defaultCharted} busiest`}
            onClick={() =>
              store.setView({
                selected: { ...store.getState().view.selected, [kind]: undefined },
                focusId: undefined,
              })
            }
          >
            Busiest {defaultCharted}
          </Button>
          <span className="faint">
            {charted.length} of {known.size} charted
          </span>
        </div>
        <StatsLegend
          id={legendId}
          caption={kind === 'containers' ? 'Container stats' : 'Pod stats'}
          entries={entries}
          at={hover === undefined || shown === undefined ? undefined : formatClock(shown.at)}
          maxCharted={maxCharted}
          focusId={focusId}
          onToggle={toggle}
        />
      </aside>
    </div>
  );
}

function StatsContent({ nodeId, stats }: { nodeId: string; stats: NodeStats | undefined }) {
  const store = useStats();
  const kind = useStore(store, (state) => state.view.kind);
  const node = useNodes((state) => state.nodes.find((candidate) => candidate.nodeId === nodeId));
  const nodeName = node?.name ?? nodeId;
  const latest = stats?.samples[stats.samples.length - 1];

  // Down: its last samples are not shown as if current; they come back with it.
  if (node?.state === 'reconnecting') {
    const hidden =
      latest === undefined ? 0 : (kind === 'containers' ? latest.containers : latest.pods).length;
    return (
      <>
        <NodeDownBanner
          node={node}
          rows={{ hidden, nouns: [kindNames[kind].one, kindNames[kind].many] }}
        />
        <EmptyState icon="unplug" title={`${nodeName} is down`}>
          Its stats show again once Porthole has reconnected.
        </EmptyState>
      </>
    );
  }

  const banners = (
    <>
      {stats?.ended !== undefined && (
        <ErrorBanner
          error={stats.ended}
          title={`Stats of ${nodeName} stopped`}
          actions={
            <Button small icon="refresh" onClick={() => store.retry(nodeId)}>
              Retry
            </Button>
          }
        />
      )}
      {stats?.pollError !== undefined && stats.ended === undefined && (
        <ErrorBanner
          tone="warn"
          error={stats.pollError}
          title={`The last stats of ${nodeName} could not be read; still trying`}
        />
      )}
      {kind === 'pods' && latest?.podStatsError !== undefined && (
        <ErrorBanner tone="warn" error={latest.podStatsError} />
      )}
      {kind === 'pods' && latest?.podStatsAvoided !== undefined && (
        <InfoBanner>
          {latest.podStatsAvoided} A pod’s figures here are the sum of its containers’, marked “sum
          of containers”: the pod’s own processes are not in them.
        </InfoBanner>
      )}
      {kind === 'pods' &&
        latest?.podStatsAvoided === undefined &&
        latest?.pods.some((pod) => pod.source === 'containers') === true && (
          <InfoBanner>
            {nodeName} reports no CPU or memory for pods themselves (CRI-O does not under cgroupfs),
            so a pod’s figures here are the sum of its containers’, marked “sum of containers”: the
            pod’s own processes are not in them.
          </InfoBanner>
        )}
    </>
  );

  let body;
  if (stats === undefined || (!stats.loaded && stats.ended === undefined)) {
    body = <LoadingState>Reading stats from the runtime…</LoadingState>;
  } else if (kind === 'pods' && latest !== undefined && !latest.podStatsSupported) {
    body = (
      <EmptyState icon="pods" title="Pod stats are not supported by this runtime">
        {nodeName} answers ListPodSandboxStats with “unimplemented”. Container stats are still shown
        under Containers.
      </EmptyState>
    );
  } else if (kind === 'containers' && latest !== undefined && !latest.containerStatsSupported) {
    body = (
      <EmptyState icon="containers" title="Container stats are not supported by this runtime">
        {nodeName} answers ListContainerStats with “unimplemented”.
      </EmptyState>
    );
  } else if (stats.samples.length === 0) {
    body =
      stats.ended === undefined ? <LoadingState>Waiting for the first sample…</LoadingState> : null;
  } else if (
    latest !== undefined &&
    (kind === 'containers' ? latest.containers : latest.pods).length === 0 &&
    (kind === 'containers' || (latest.unreadablePods ?? []).length === 0) &&
    stats.samples.every(
      (sample) => (kind === 'containers' ? sample.containers : sample.pods).length === 0,
    )
  ) {
    body = (
      <EmptyState icon="stats" title={`No running ${kindNames[kind].many} on ${nodeName}`}>
        Stats appear here as soon as something runs.
      </EmptyState>
    );
  } else {
    body = <StatsCharts nodeId={nodeId} kind={kind} samples={stats.samples} />;
  }
  return (
    <>
      {banners}
      {body}
    </>
  );
}

/**
 * Live CPU and memory charts of one node's containers or pods, with a legend that also
 * chooses what is charted (the busiest few by default, or what a "Stats" action asked for).
 */
export function StatsView() {
  const store = useStats();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const chosen = useStore(store, (state) => state.view.nodeId);
  // A node that is reconnecting stays chosen: its stats come back with it.
  const followed = (id: string | undefined): boolean =>
    nodes.some((node) => node.nodeId === id && isFollowed(node));
  const inScope = scope.kind === 'node' ? scope.nodeId : undefined;
  const nodeId = followed(chosen)
    ? (chosen ?? '')
    : followed(inScope)
      ? (inScope ?? '')
      : defaultNodeId(nodes, scope) || (nodes.find(isFollowed)?.nodeId ?? '');
  const stats = useStore(store, (state) => state.byNode[nodeId]);

  useEffect(() => {
    if (nodeId === '') return undefined;
    const handle = store.retain(nodeId);
    return () => handle.dispose();
  }, [store, nodeId]);

  return (
    <div className="view stats-view">
      <StatsToolbar nodeId={nodeId} stats={stats} />
      {nodeId === '' ? (
        <NoNodeState>
          Connect a node to see the CPU and memory its containers and pods use.
        </NoNodeState>
      ) : (
        <StatsContent nodeId={nodeId} stats={stats} />
      )}
    </div>
  );
}
