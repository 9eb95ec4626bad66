import type { Column } from '../../ui/table/VirtualTable';
import type { StatsKind } from './series';
import { StatsSparkCell } from './StatsCells';

type StatsRow = { readonly nodeId: string; readonly id: string };

/**
 * The CPU and Memory columns of the pods and containers tables: recent use as a sparkline
 * beside the latest value. They give way early when the table is narrow.
 */
export function statsColumns<Row extends StatsRow>(kind: StatsKind): readonly Column<Row>[] {
  return [
    {
      id: 'cpu',
      priority: 30,
      header: 'CPU',
      width: 124,
      render: (row) => <StatsSparkCell nodeId={row.nodeId} kind={kind} id={row.id} metric="cpu" />,
    },
    {
      id: 'memory',
      priority: 28,
      header: 'Memory',
      width: 140,
      render: (row) => (
        <StatsSparkCell nodeId={row.nodeId} kind={kind} id={row.id} metric="memory" />
      ),
    },
  ];
}
