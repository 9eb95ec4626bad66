import { memo, useEffect } from 'react';
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { Sparkline } from '../../ui/Sparkline';
import { formatCpu, formatMemory } from './format';
import { latestValue, type StatsKind } from './series';
import { sparkLength, statsStoreOf } from './stats-store';
import './stats.css';

/** The CPU sparkline's scale never tops out below this: idle noise stays a flat line. */
const cpuFloorPercent = 5;

/**
 * A table cell with a container's or pod's recent CPU or memory: a sparkline and the
 * latest value. Mounting it keeps its node's stats subscribed, so a table subscribes
 * only while its rows are on screen.
 */
export const StatsSparkCell = memo(function StatsSparkCell({
  nodeId,
  kind,
  id,
  metric,
}: {
  nodeId: string;
  kind: StatsKind;
  id: string;
  metric: 'cpu' | 'memory';
}) {
  const store = statsStoreOf(useModel());
  useEffect(() => {
    const handle = store.retain(nodeId);
    return () => handle.dispose();
  }, [store, nodeId]);
  const values = useStore(store, (state) => state.byNode[nodeId]?.spark[kind].get(id)?.[metric]);
  const summed = useStore(store, (state) => state.byNode[nodeId]?.spark[kind].get(id)?.summed);
  if (values === undefined) return <span className="faint">—</span>;
  const latest = latestValue(values);
  const peak = Math.max(0, ...values.map((value) => value ?? 0));
  return (
    <span
      className="stats-cell"
      {...(summed === true && {
        title: 'The sum of the pod’s containers: the runtime reports none for the pod itself',
      })}
    >
      <Sparkline
        values={values}
        width={48}
        height={16}
        max={metric === 'cpu' ? Math.max(cpuFloorPercent, peak) : peak}
        label={`${metric === 'cpu' ? 'CPU' : 'Memory'}, last ${sparkLength} samples`}
      />
      <span className="stats-cell-value">
        {metric === 'cpu' ? formatCpu(latest) : formatMemory(latest)}
        {summed === true && <span className="faint"> Σ</span>}
      </span>
    </span>
  );
});
