/**
 * The Run on many form: which containers (by labels, name pattern or by hand, on which
 * nodes), the command and how to run it.
 */
import { useId, useMemo, useState } from 'react';
import { fanoutLimits } from '../../../../shared/model';
import { useModel, useNodes, useResources } from '../../app/context';
import { Button } from '../../ui/Button';
import { Field } from '../../ui/Field';
import { FilterField } from '../../ui/view/Toolbar';
import { requestOf, type TargetKind } from './fanout-controller';
import { useController, useFanout } from './use-fanout';

const targetKinds: readonly { readonly value: TargetKind; readonly label: string }[] = [
  { value: 'labels', label: 'Label selector' },
  { value: 'name', label: 'Name pattern' },
  { value: 'selection', label: 'Chosen containers' },
];

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

export function FanoutForm() {
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
