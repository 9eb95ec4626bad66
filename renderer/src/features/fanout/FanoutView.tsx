/** Run on many: the form above, its run's results (grouped, diffed, copied as crictl) below. */
import { copyWithToast } from '../../app/CopyButton';
import { useModel, useNodes } from '../../app/context';
import { Button } from '../../ui/Button';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { crictlTarget } from '../resources/actions';
import { fanoutCrictlLines } from './crictl';
import { DiffPane } from './DiffPane';
import { FanoutForm } from './FanoutForm';
import { groupRows, groupSummary } from './groups';
import { ResultRows } from './ResultRows';
import { useController, useFanout } from './use-fanout';
import './fanout.css';

function Results() {
  const model = useModel();
  const controller = useController();
  const run = useFanout((state) => state.run);
  const rows = useFanout((state) => state.rows);
  const grouped = useFanout((state) => state.grouped);
  const streamError = useFanout((state) => state.streamError);
  const nodes = useNodes((state) => state.nodes);
  if (run === undefined) {
    return (
      <EmptyState icon="terminal" title="Run one command on many containers">
        Pick containers by label, name or by hand, type a command and run it: the results come back
        side by side, identical outputs grouped.
      </EmptyState>
    );
  }
  const ended = rows.filter((row) => row.state !== 'queued' && row.state !== 'running').length;
  const grouping = groupRows(rows);
  const copyCrictl = () => {
    const nodeIds = [...new Set(rows.map((row) => row.nodeId))];
    const lines = fanoutCrictlLines(run.request, run.method, nodeIds, (nodeId) =>
      crictlTarget(model, nodeId),
    );
    const text = lines
      .map((line) => {
        const name = nodes.find((node) => node.nodeId === line.nodeId)?.name ?? line.nodeId;
        return `# ${name}${line.note !== undefined ? ` — ${line.note}` : ''}\n${line.command}`;
      })
      .join('\n');
    void copyWithToast(model, text, 'the crictl command');
  };
  return (
    <div className="fanout-results">
      <Toolbar label="Run results" role="toolbar">
        <ToolbarStatus>
          <span className="fanout-summary">
            {ended}/{rows.length} done{rows.length > 0 ? ` · ${groupSummary(rows)}` : ''}
          </span>
        </ToolbarStatus>
        <label>
          <input
            type="checkbox"
            checked={grouped}
            onChange={(event) => controller.setGrouped(event.target.checked)}
          />{' '}
          Group identical outputs
        </label>
        <Button small icon="copy" onClick={copyCrictl}>
          Copy as crictl
        </Button>
        <Button small icon="download" onClick={() => void controller.exportJsonLines()}>
          Export JSON lines
        </Button>
      </Toolbar>
      <InfoBanner>
        <span className="fanout-method">{run.method.reason}</span>
      </InfoBanner>
      {streamError !== undefined && (
        <ErrorBanner error={streamError} title="The run's updates stopped" />
      )}
      <DiffPane rows={rows} />
      {grouped ? (
        <>
          {grouping.groups.map((group, index) => (
            <section key={group.digest} className="fanout-group" aria-label={`Group ${index + 1}`}>
              <h2>
                {group.rows.length === 1 ? '1 container' : `${group.rows.length} identical`} · exit{' '}
                {group.exitCode}
                {index > 0 || grouping.groups.length === 1 ? '' : ' · the most common output'}
              </h2>
              <ResultRows
                rows={group.rows}
                caption={`Group ${index + 1}: ${group.rows.length} containers`}
              />
            </section>
          ))}
          {grouping.others.length > 0 && (
            <section className="fanout-group" aria-label="Without output to compare">
              <h2>{grouping.others.length} without output to compare</h2>
              <ResultRows rows={grouping.others} caption="Rows without output to compare" />
            </section>
          )}
        </>
      ) : (
        <ResultRows rows={rows} caption="Every container" />
      )}
    </div>
  );
}

export function FanoutView() {
  const error = useFanout((state) => state.error);
  return (
    <div className="view fanout-view">
      <FanoutForm />
      {error !== undefined && <ErrorBanner error={error} title="Could not run" />}
      <Results />
    </div>
  );
}
