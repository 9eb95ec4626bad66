/**
 * The results table: a row a container with its state, exit code and first line of
 * output, opened in place to show the whole output.
 */
import type { ReactNode } from 'react';
import type { FanoutRow } from '../../../../shared/model';
import { Badge, type Tone } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { useController, useFanout } from './use-fanout';

const stateTones: Readonly<Record<FanoutRow['state'], Tone>> = {
  queued: 'neutral',
  running: 'info',
  exited: 'ok',
  failed: 'danger',
  cancelled: 'neutral',
  vanished: 'warn',
};

function RowState({ row }: { row: FanoutRow }) {
  const tone = row.state === 'exited' && row.exitCode !== 0 ? 'warn' : stateTones[row.state];
  return (
    <Badge tone={tone} busy={row.state === 'running'}>
      {row.state}
    </Badge>
  );
}

function firstLine(row: FanoutRow): string {
  if (row.state !== 'exited' && row.reason !== undefined) return row.reason;
  const text = row.stdout.text !== '' ? row.stdout.text : row.stderr.text;
  const line = text.split('\n', 1)[0] ?? '';
  return line;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function Output({ row }: { row: FanoutRow }) {
  return (
    <div className="fanout-output">
      {row.reason !== undefined && <p>{row.reason}</p>}
      {(['stdout', 'stderr'] as const).map((stream) =>
        row[stream].bytes === 0 ? null : (
          <div key={stream}>
            <div className="muted">
              {stream} · {row[stream].bytes} bytes
              {row[stream].truncated ? ' (the first 64 KiB shown)' : ''}
            </div>
            <pre tabIndex={0} aria-label={`${stream} of ${row.containerName}`}>
              {row[stream].text}
            </pre>
          </div>
        ),
      )}
      {row.stdout.bytes === 0 && row.stderr.bytes === 0 && row.reason === undefined && (
        <p className="muted">No output.</p>
      )}
    </div>
  );
}

export function ResultRows({ rows, caption }: { rows: readonly FanoutRow[]; caption: string }) {
  const controller = useController();
  const expanded = useFanout((state) => state.expanded);
  const compare = useFanout((state) => state.compare);
  return (
    <table className="detail-table fanout-grid" aria-label={caption}>
      <thead>
        <tr>
          <th>Compare</th>
          <th>Node</th>
          <th>Pod</th>
          <th>Container</th>
          <th>State</th>
          <th className="end">Exit</th>
          <th className="end">Duration</th>
          <th>Output</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const open = expanded.includes(row.key);
          const name = row.containerName || row.containerId || row.nodeName;
          return (
            <FragmentRow key={row.key} open={open} row={row}>
              <tr data-row={row.key} className={open ? 'open' : undefined}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare ${name}`}
                    checked={compare.includes(row.key)}
                    disabled={row.containerId === ''}
                    onChange={() => controller.toggleCompare(row.key)}
                  />
                </td>
                <td>{row.nodeName}</td>
                <td>{row.podName !== '' ? `${row.podNamespace}/${row.podName}` : ''}</td>
                <td className="mono">{name}</td>
                <td>
                  <RowState row={row} />
                </td>
                <td className="end">{row.exitCode ?? ''}</td>
                <td className="end">{formatMs(row.durationMs)}</td>
                <td className="fanout-first">
                  <Button
                    small
                    variant="ghost"
                    aria-expanded={open}
                    aria-label={`${open ? 'Hide' : 'Show'} the output of ${name}`}
                    onClick={() => controller.toggleExpanded(row.key)}
                  >
                    {open ? '▾' : '▸'}
                  </Button>{' '}
                  <span className="mono">{firstLine(row)}</span>
                </td>
              </tr>
            </FragmentRow>
          );
        })}
      </tbody>
    </table>
  );
}

function FragmentRow({
  open,
  row,
  children,
}: {
  open: boolean;
  row: FanoutRow;
  children: ReactNode;
}) {
  return (
    <>
      {children}
      {open && (
        <tr className="fanout-expanded">
          <td colSpan={8}>
            <Output row={row} />
          </td>
        </tr>
      )}
    </>
  );
}
