import { useEffect, useRef } from 'react';
import { formatCpu, formatMemory } from './format';

export interface LegendEntry {
  readonly id: string;
  readonly label: string;
  /** The pod of a container, the namespace of a pod. */
  readonly sub: string;
  /** Its line colour when charted. */
  readonly color?: string;
  readonly cpuPercent?: number;
  readonly memoryBytes?: number;
  /** A pod the runtime can't read stats of: why, in a sentence and in its own words. */
  readonly unreadable?: { readonly reason: string; readonly detail: string };
}

/**
 * The charts' legend and the choice of what they show: every container (or pod) the node
 * reported, its colour when charted, and its values — at the time under the cursor while
 * one hovers the charts, the latest otherwise.
 */
export function StatsLegend({
  id,
  caption,
  entries,
  at,
  maxCharted,
  focusId,
  onToggle,
}: {
  /** Named by the charts it stands for (aria-describedby). */
  id?: string;
  caption: string;
  entries: readonly LegendEntry[];
  /** The hovered time, as text; undefined: the latest values. */
  at: string | undefined;
  maxCharted: number;
  focusId: string | undefined;
  onToggle: (id: string, charted: boolean) => void;
}) {
  const charted = entries.filter((entry) => entry.color !== undefined).length;
  const focused = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    focused.current?.scrollIntoView({ block: 'nearest' });
  }, [focusId]);

  return (
    <div className="stats-legend-scroll">
      <table id={id} className="stats-legend" aria-label={caption}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className="stats-legend-check">
              <span className="visually-hidden">Charted</span>
            </th>
            <th scope="col">Name</th>
            <th scope="col" className="num">
              CPU
            </th>
            <th scope="col" className="num">
              Memory
            </th>
          </tr>
          <tr className="stats-legend-when">
            <td />
            <td colSpan={3} aria-live="polite">
              {at === undefined ? 'Latest values' : `At ${at}`}
            </td>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const isCharted = entry.color !== undefined;
            const full = !isCharted && charted >= maxCharted;
            const { unreadable } = entry;
            return (
              <tr
                key={entry.id}
                ref={entry.id === focusId ? focused : undefined}
                className={entry.id === focusId ? 'focused' : undefined}
                data-series-id={entry.id}
              >
                <td className="stats-legend-check">
                  <input
                    type="checkbox"
                    checked={isCharted}
                    disabled={full || unreadable !== undefined}
                    title={
                      unreadable !== undefined
                        ? 'Its stats can’t be read: nothing to chart'
                        : full
                          ? `At most ${maxCharted} at once`
                          : undefined
                    }
                    aria-label={`Chart ${entry.label}`}
                    onChange={(event) => onToggle(entry.id, event.target.checked)}
                  />
                </td>
                <th scope="row">
                  <span className="stats-legend-name">
                    <span
                      className="stats-swatch"
                      style={isCharted ? { background: entry.color } : undefined}
                      aria-hidden="true"
                    />
                    <span className="stats-legend-label" title={entry.label}>
                      {entry.label}
                    </span>
                    {entry.sub !== '' && (
                      <span className="stats-legend-sub" title={entry.sub}>
                        {entry.sub}
                      </span>
                    )}
                  </span>
                  {unreadable !== undefined && (
                    <span className="stats-legend-reason" title={unreadable.detail}>
                      {unreadable.reason}
                    </span>
                  )}
                </th>
                {unreadable !== undefined ? (
                  <td colSpan={2} className="num stats-legend-unread" title={unreadable.detail}>
                    can’t be read
                  </td>
                ) : (
                  <>
                    <td className="num" data-metric="cpu">
                      {formatCpu(entry.cpuPercent)}
                    </td>
                    <td className="num" data-metric="memory">
                      {formatMemory(entry.memoryBytes)}
                    </td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
