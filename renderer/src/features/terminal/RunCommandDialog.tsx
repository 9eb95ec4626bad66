import { useEffect, useId, useRef, useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { AppModel } from '../../app/model';
import { Dialog, FormActions } from '../../ui/Dialog';
import { debugContainer } from '../debug';
import type { ContainerRow } from '../resources/model';
import { formatCommandLine, splitCommandLine } from './command-line';
import { terminalsOf } from './store';

type Probe =
  | { readonly state: 'probing' }
  | { readonly state: 'found'; readonly shell: readonly string[] }
  | { readonly state: 'none'; readonly error: AppErrorData };

function parse(text: string): { argv?: string[]; error?: string } {
  try {
    const argv = splitCommandLine(text);
    return argv.length === 0 ? { error: 'Enter a command, e.g. ls -la /.' } : { argv };
  } catch (error) {
    return { error: toAppErrorData(error).message };
  }
}

/**
 * "Run command…": the container's shell (probed) prefilled, or any command the image
 * has; it runs in a new terminal tab with a tty.
 */
interface RunCommandDialogProps {
  readonly model: AppModel;
  readonly container: ContainerRow;
  readonly onClose: () => void;
}

function RunCommandDialog({ model, container, onClose }: RunCommandDialogProps) {
  const inputId = useId();
  const helpId = useId();
  const [text, setText] = useState('');
  // Set once the user types: the probe's answer must not overwrite what they wrote.
  const edited = useRef(false);
  const [probe, setProbe] = useState<Probe>({ state: 'probing' });
  const [touched, setTouched] = useState(false);

  useEffect(() => {
    let current = true;
    model.client.services.terminals.probeShell(container.nodeId, container.id).then(
      (shell) => {
        if (!current) return;
        setProbe({ state: 'found', shell });
        if (!edited.current) setText(formatCommandLine(shell));
      },
      (error: unknown) => {
        if (current) setProbe({ state: 'none', error: toAppErrorData(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [model, container.nodeId, container.id]);

  const { argv, error } = parse(text);

  const run = (): void => {
    setTouched(true);
    if (argv === undefined) return;
    onClose();
    void terminalsOf(model).openTerminal({
      nodeId: container.nodeId,
      containerId: container.id,
      containerName: container.name,
      podName: container.podName,
      kind: 'exec',
      command: argv,
    });
  };

  return (
    <Dialog
      title={`Run a command in ${container.name}`}
      onClose={onClose}
      onSubmit={run}
      describedBy={helpId}
      footer={<FormActions submitLabel="Run" onCancel={onClose} />}
    >
      <div className="form-grid">
        <div className="field">
          <label htmlFor={inputId}>Command</label>
          <input
            id={inputId}
            className="input mono"
            data-autofocus
            spellCheck={false}
            autoComplete="off"
            value={text}
            placeholder={probe.state === 'probing' ? 'Looking for a shell…' : 'ls -la /'}
            aria-invalid={touched && error !== undefined}
            onChange={(event) => {
              edited.current = true;
              setText(event.target.value);
            }}
          />
          {touched && error !== undefined && <div className="field-error">{error}</div>}
          <div className="field-help" id={helpId}>
            {probe.state === 'probing' && 'Looking for a shell (bash, ash, sh)… '}
            {probe.state === 'found' && (
              <>
                The container's shell is <code>{formatCommandLine(probe.shell)}</code>.{' '}
              </>
            )}
            {probe.state === 'none' && (
              <>
                {probe.error.message}{' '}
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => {
                    onClose();
                    debugContainer(model, container, `${container.name} has no shell.`);
                  }}
                >
                  Debug it from a toolbox…
                </button>{' '}
              </>
            )}
            Words are split as a shell would (quotes work), but no shell runs it: for pipes or
            variables run <code>sh -c '…'</code>.
          </div>
        </div>
      </div>
    </Dialog>
  );
}

export function openRunCommandDialog(model: AppModel, container: ContainerRow): void {
  model.ui.getState().openDialog({
    key: `run-command-${container.key}`,
    render: (close) => <RunCommandDialog model={model} container={container} onClose={close} />,
  });
}
