/** Two marked rows' outputs side by side, with the changed lines marked. */
import type { FanoutRow } from '../../../../shared/model';
import { Button } from '../../ui/Button';
import { sideBySide } from './diff';
import { useController, useFanout } from './use-fanout';

export function DiffPane({ rows }: { rows: readonly FanoutRow[] }) {
  const controller = useController();
  const compare = useFanout((state) => state.compare);
  const [left, right] = compare.map((key) => rows.find((row) => row.key === key));
  if (left === undefined || right === undefined) {
    return compare.length === 1 ? (
      <p className="muted fanout-hint">Mark one more row to compare it with the first.</p>
    ) : null;
  }
  const text = (row: FanoutRow) =>
    row.stderr.bytes > 0
      ? `${row.stdout.text}${row.stdout.text.endsWith('\n') || row.stdout.text === '' ? '' : '\n'}--- stderr ---\n${row.stderr.text}`
      : row.stdout.text;
  const diff = sideBySide(text(left), text(right));
  const title = (row: FanoutRow) =>
    `${row.nodeName} · ${row.podName} › ${row.containerName} (exit ${row.exitCode ?? '–'})`;
  return (
    <section className="fanout-diff" aria-label="Output diff">
      <header>
        <h2>
          Diff:{' '}
          {diff.tooDifferent ? 'the outputs differ throughout' : `${diff.changes} changed lines`}
        </h2>
        <Button
          small
          variant="ghost"
          icon="close"
          onClick={() => compare.forEach((key) => controller.toggleCompare(key))}
        >
          Close diff
        </Button>
      </header>
      <table className="fanout-diff-table" aria-label="Side by side">
        <thead>
          <tr>
            <th colSpan={2}>{title(left)}</th>
            <th colSpan={2}>{title(right)}</th>
          </tr>
        </thead>
        <tbody>
          {diff.rows.map((line, index) => (
            <tr key={index} className={`diff-${line.kind}`}>
              <td className="diff-no">{line.left?.line ?? ''}</td>
              <td className="mono diff-left">{line.left?.text ?? ''}</td>
              <td className="diff-no">{line.right?.line ?? ''}</td>
              <td className="mono diff-right">{line.right?.text ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
