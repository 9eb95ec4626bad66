import { Component, lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import type { SpecProblem } from '../../../../shared/contract';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { useModel, useNodes } from '../../app/context';
import { copyWithToast } from '../../app/CopyButton';
import { runAction } from '../../app/model';
import { Dialog } from '../../ui/Dialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Icon } from '../../ui/icons';
import { crictlRunScript } from './crictl';
import { crictlTarget } from './actions';
import { resourceKey } from './model';
import { defaultNodeId, NodePicker } from './NodePicker';
import { showPod } from './navigation';
import { specPodName, specToCrictlConfigs, starterSpec } from './run-spec';
import { PlainSpecEditor } from './PlainSpecEditor';

// CodeMirror is loaded when the dialog first opens: it isn't needed to start the app.
const SpecEditor = lazy(() => import('./SpecEditor'));

/** What the user last typed, so closing the dialog by mistake loses nothing. */
let draft = starterSpec;

const validationDelayMs = 300;

/** Falls back to the plain editor if CodeMirror fails to load. */
class EditorBoundary extends Component<
  { fallback: ReactNode; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

type Validation =
  | { readonly state: 'checking' }
  | { readonly state: 'done'; readonly problems: readonly SpecProblem[] }
  | { readonly state: 'failed'; readonly error: AppErrorData };

export function RunSpecDialog({ onClose }: { onClose: () => void }) {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const [nodeId, setNodeId] = useState(() => defaultNodeId(nodes, scope));
  const [text, setText] = useState(draft);
  const [validation, setValidation] = useState<Validation>({ state: 'checking' });
  const [running, setRunning] = useState(false);
  const [reveal, setReveal] = useState<{ line: number; column?: number } | undefined>();
  const latest = useRef(0);

  // Validate as the user types, debounced; a slow answer for old text is ignored.
  useEffect(() => {
    draft = text;
    const request = ++latest.current;
    setValidation((current) => (current.state === 'done' ? current : { state: 'checking' }));
    const timer = setTimeout(() => {
      model.client.services.lifecycle.validateSpec(text).then(
        (result) => {
          if (request === latest.current) setValidation({ state: 'done', problems: result.errors });
        },
        (error: unknown) => {
          if (request === latest.current) {
            setValidation({ state: 'failed', error: toAppErrorData(error) });
          }
        },
      );
    }, validationDelayMs);
    return () => clearTimeout(timer);
  }, [model, text]);

  const problems = validation.state === 'done' ? validation.problems : [];
  const valid = validation.state === 'done' && problems.length === 0;

  const run = async (): Promise<void> => {
    if (running || nodeId === '') return;
    setRunning(true);
    const podName = specPodName(text) ?? 'the pod';
    const result = await runAction(
      model,
      () => model.client.services.lifecycle.runFromSpec(nodeId, text),
      {
        success: (ran) =>
          `Started ${podName}${ran.containerIds.length > 0 ? ` with ${ran.containerIds.length} ${ran.containerIds.length === 1 ? 'container' : 'containers'}` : ''}`,
        failure: `Could not run ${podName}`,
      },
    );
    setRunning(false);
    if (result === undefined) return;
    draft = starterSpec;
    onClose();
    showPod(model, resourceKey(nodeId, result.podSandboxId));
  };

  const copyScript = (): void => {
    const configs = specToCrictlConfigs(text);
    if (configs === undefined) {
      model.toasts.getState().show({
        tone: 'error',
        title: 'Could not build the crictl commands',
        error: {
          code: 'invalid-argument',
          message: 'The spec does not parse.',
          hint: 'Fix the problems listed under the editor.',
        },
      });
      return;
    }
    const script = crictlRunScript(crictlTarget(model, nodeId), configs.pod, configs.containers);
    void copyWithToast(model, script, 'the crictl commands');
  };

  const editorProps = {
    value: text,
    onChange: setText,
    problems,
    onRun: () => void run(),
    reveal,
    label: 'Pod spec (YAML or JSON)',
  };

  return (
    <Dialog
      title="Run a pod from a spec"
      wide
      onClose={onClose}
      footer={
        <>
          <span className="footer-note">
            <kbd>Ctrl</kbd>+<kbd>Enter</kbd> run · <kbd>Esc</kbd> close (your text is kept)
          </span>
          <button type="button" className="btn" onClick={copyScript}>
            <Icon name="copy" size={14} />
            Copy as crictl
          </button>
          <button type="button" className="btn" onClick={() => setText(starterSpec)}>
            Reset to template
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={running || nodeId === '' || (validation.state === 'done' && !valid)}
            onClick={() => void run()}
          >
            {running ? <span className="spinner" /> : <Icon name="play" size={14} />}
            {running ? 'Starting…' : 'Run'}
          </button>
        </>
      }
    >
      <div className="spec-layout">
        <div className="field-row" style={{ alignItems: 'center' }}>
          <label htmlFor="run-node" style={{ flex: 'none', fontWeight: 550 }}>
            Node
          </label>
          <NodePicker id="run-node" value={nodeId} onChange={setNodeId} />
          <span className="toolbar-spacer" />
        </div>
        <EditorBoundary fallback={<PlainSpecEditor {...editorProps} />}>
          <Suspense fallback={<PlainSpecEditor {...editorProps} />}>
            <SpecEditor {...editorProps} />
          </Suspense>
        </EditorBoundary>
        {validation.state === 'failed' && (
          <ErrorBanner error={validation.error} title="The spec could not be checked" tone="warn" />
        )}
        <div className={valid ? 'spec-status ok' : 'spec-status'} role="status" aria-live="polite">
          {validation.state === 'checking' && (
            <>
              <span className="spinner" /> Checking…
            </>
          )}
          {valid && (
            <>
              <Icon name="check" size={14} /> The spec is valid.
            </>
          )}
          {validation.state === 'done' && !valid && (
            <span className="field-error">
              {problems.length} {problems.length === 1 ? 'problem' : 'problems'} to fix before it
              can run:
            </span>
          )}
        </div>
        {problems.length > 0 && (
          <ul className="spec-problems" aria-label="Problems in the spec">
            {problems.map((problem, index) => (
              <li key={`${problem.path}:${problem.line ?? 0}:${index}`}>
                <button
                  type="button"
                  className="spec-problem link"
                  onClick={() =>
                    problem.line !== undefined &&
                    setReveal({
                      line: problem.line,
                      ...(problem.column !== undefined && { column: problem.column }),
                    })
                  }
                >
                  <span className="mono">
                    {problem.line !== undefined ? `line ${problem.line}` : 'spec'}
                  </span>
                  {problem.path !== '' && <span className="mono">{problem.path}</span>}
                  <span>{problem.message}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
