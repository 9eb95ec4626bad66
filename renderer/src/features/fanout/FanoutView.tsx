import { useId, useMemo, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { FanoutRow } from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';
import { copyWithToast } from '../../app/CopyButton';
import { useModel, useNodes, useResources } from '../../app/context';
import { Badge, type Tone } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { Field } from '../../ui/Field';
import { FilterField, Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { crictlTarget } from '../resources/actions';
import { fanoutCrictlLines } from './crictl';
import { sideBySide } from './diff';
import {
  fanoutControllerOf,
  requestOf,
  type FanoutController,
  type TargetKind,
} from './fanout-controller';
import { groupRows, groupSummary } from './groups';
import './fanout.css';

function useController(): FanoutController {
  return fanoutControllerOf(useModel());
}

function useFanout<T>(select: (state: ReturnType<FanoutController['store']['getState']>) => T): T {
  return useStore(useController().store, select);
}

const targetKinds: readonly { readonly value: TargetKind; readonly label: string }[] = [
  { value: 'labels', label: 'Label selector' },
  { value: 'name', label: 'Name pattern' },
  { value: 'selection', label: 'Chosen containers' },
];

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

function ContainerChooser() {
  const controller = useController();
  const model = useModel();
  const chosen = useFanout((state) => state.form.chosen);
  const index = useResources((state) => state.index);
  const nodes = useNodes((state) => state.nodes);
  const [filter, setFilter] = useState('');
  const rows = useMemo(
    () => model.rows.containerRows(index).filter((row) => row.state === 'running'),
    [model, index],
  );
  const shown = rows.filter((row) => filter === '' || row.search.includes(filter.toLowerCase()));
  const visible = shown.slice(0, 200);
  const chosenSet = new Set(chosen);
  const keyOf = (row: (typeof rows)[number]) => `${row.nodeId}/${row.id}`;
  return (
    <div className="fanout-chooser">
      <div className="fanout-chooser-bar">
        <FilterField
          label="Filter running containers"
          placeholder="Filter running containers"
          value={filter}
          onChange={setFilter}
        />
        <Button
          small
          onClick={() =>
            controller.setForm({ chosen: [...new Set([...chosen, ...shown.map(keyOf)])] })
          }
        >
          Choose all {shown.length} shown
        </Button>
        <Button small variant="ghost" onClick={() => controller.setForm({ chosen: [] })}>
          Clear
        </Button>
        <span className="muted">{chosen.length} chosen</span>
      </div>
      {rows.length === 0 ? (
        <p className="muted">No running container on the connected nodes.</p>
      ) : (
        <ul className="fanout-chooser-list" aria-label="Running containers">
          {visible.map((row) => {
            const key = keyOf(row);
            return (
              <li key={key}>
                <label>
                  <input
                    type="checkbox"
                    checked={chosenSet.has(key)}
                    onChange={(event) =>
                      controller.setForm({
                        chosen: event.target.checked
                          ? [...chosen, key]
                          : chosen.filter((k) => k !== key),
                      })
                    }
                  />{' '}
                  <span className="mono">{row.name}</span>{' '}
                  <span className="muted">
                    {row.namespace}/{row.podName} ·{' '}
                    {nodes.find((node) => node.nodeId === row.nodeId)?.name ?? row.nodeId}
                  </span>
                </label>
              </li>
            );
          })}
          {shown.length > visible.length && (
            <li className="muted">{shown.length - visible.length} more: filter to find them.</li>
          )}
        </ul>
      )}
    </div>
  );
}

function NodeScope() {
  const controller = useController();
  const nodeIds = useFanout((state) => state.form.nodeIds);
  const nodes = useNodes((state) => state.nodes).filter((node) => node.state === 'connected');
  if (nodes.length === 0) return <p className="muted">No node is connected.</p>;
  const chosen = nodeIds ?? nodes.map((node) => node.nodeId);
  return (
    <fieldset className="fanout-nodes">
      <legend>On nodes</legend>
      {nodes.map((node) => (
        <label key={node.nodeId}>
          <input
            type="checkbox"
            checked={chosen.includes(node.nodeId)}
            onChange={(event) =>
              controller.setForm({
                nodeIds: event.target.checked
                  ? [...chosen, node.nodeId]
                  : chosen.filter((id) => id !== node.nodeId),
              })
            }
          />{' '}
          {node.name}
        </label>
      ))}
    </fieldset>
  );
}

function FanoutForm() {
  const controller = useController();
  const form = useFanout((state) => state.form);
  const starting = useFanout((state) => state.starting);
  const running = useFanout((state) => state.run?.state === 'running');
  const id = useId();
  const command = requestOf(form).command;
  const ready =
    command.length > 0 &&
    (form.targetKind === 'selection'
      ? form.chosen.length > 0
      : (form.targetKind === 'labels' ? form.selector : form.pattern).trim() !== '');
  return (
    <form
      className="fanout-form"
      aria-label="Run a command on many containers"
      onSubmit={(event) => {
        event.preventDefault();
        if (ready) void controller.start();
      }}
    >
      <div className="fanout-targets">
        <div className="field" role="radiogroup" aria-label="Pick containers by">
          <span className="field-label">Pick containers by</span>
          <div className="fanout-kinds">
            {targetKinds.map((kind) => (
              <label key={kind.value}>
                <input
                  type="radio"
                  name={`${id}-kind`}
                  checked={form.targetKind === kind.value}
                  onChange={() => controller.setForm({ targetKind: kind.value })}
                />{' '}
                {kind.label}
              </label>
            ))}
          </div>
        </div>
        {form.targetKind === 'labels' && (
          <Field
            id={`${id}-selector`}
            label="Label selector"
            help="key=value, key!=value, key or !key, separated by commas; every term must hold."
          >
            <input
              id={`${id}-selector`}
              className="input mono"
              spellCheck={false}
              placeholder="app=web"
              value={form.selector}
              onChange={(event) => controller.setForm({ selector: event.target.value })}
            />
          </Field>
        )}
        {form.targetKind === 'name' && (
          <Field
            id={`${id}-pattern`}
            label="Container name pattern"
            help="A regular expression (RE2, as crictl --name), matched anywhere in the name unless anchored."
          >
            <input
              id={`${id}-pattern`}
              className="input mono"
              spellCheck={false}
              placeholder="^web-"
              value={form.pattern}
              onChange={(event) => controller.setForm({ pattern: event.target.value })}
            />
          </Field>
        )}
        {form.targetKind === 'selection' ? <ContainerChooser /> : <NodeScope />}
      </div>
      <Field id={`${id}-command`} label="Command">
        <input
          id={`${id}-command`}
          className="input mono"
          spellCheck={false}
          placeholder="hostname; cat /etc/hostname"
          value={form.commandText}
          onChange={(event) => controller.setForm({ commandText: event.target.value })}
        />
      </Field>
      <div className="fanout-options">
        <label>
          <input
            type="checkbox"
            checked={form.shell}
            onChange={(event) => controller.setForm({ shell: event.target.checked })}
          />{' '}
          Through <span className="mono">sh -c</span>
        </label>
        <label>
          Exec{' '}
          <select
            className="select"
            value={form.mode}
            onChange={(event) =>
              controller.setForm({ mode: event.target.value as typeof form.mode })
            }
          >
            <option value="auto">Automatic</option>
            <option value="sync">ExecSync</option>
            <option value="stream">Streaming</option>
          </select>
        </label>
        <label>
          Timeout (s, 0 = none){' '}
          <input
            className="input fanout-number"
            type="number"
            min={0}
            max={fanoutLimits.maxTimeoutSeconds}
            value={form.timeoutSeconds}
            onChange={(event) =>
              controller.setForm({
                timeoutSeconds: Math.max(0, Math.floor(Number(event.target.value) || 0)),
              })
            }
          />
        </label>
        <label>
          At once{' '}
          <input
            className="input fanout-number"
            type="number"
            min={1}
            max={fanoutLimits.maxConcurrency}
            value={form.concurrency}
            onChange={(event) =>
              controller.setForm({
                concurrency: Math.min(
                  fanoutLimits.maxConcurrency,
                  Math.max(1, Math.floor(Number(event.target.value) || 1)),
                ),
              })
            }
          />
        </label>
        <Button
          type="submit"
          variant="primary"
          icon="play"
          disabled={!ready || starting || running}
        >
          {starting ? 'Starting…' : 'Run'}
        </Button>
        {running && (
          <Button icon="stop" onClick={() => controller.cancel()}>
            Cancel
          </Button>
        )}
      </div>
    </form>
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

function ResultRows({ rows, caption }: { rows: readonly FanoutRow[]; caption: string }) {
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

function DiffPane({ rows }: { rows: readonly FanoutRow[] }) {
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
