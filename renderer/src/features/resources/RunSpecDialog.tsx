import {
  Component,
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import type { SpecProblem } from '../../../../shared/contract';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { CgroupDriverInfo } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { copyWithToast } from '../../app/CopyButton';
import { Dialog } from '../../ui/Dialog';
import { ErrorBanner, ErrorDetail } from '../../ui/ErrorBanner';
import { plural } from '../../ui/format';
import { Button } from '../../ui/Button';
import { Icon } from '../../ui/icons';
import { crictlRunScript } from './crictl';
import { crictlTarget } from './actions';
import { resourceKey } from './model';
import { defaultNodeId, NodePicker } from './NodePicker';
import { showPod } from './navigation';
import {
  runSteps,
  specPodName,
  specToCrictlConfigs,
  starterSpec,
  type RunStepLine,
} from './run-spec';
import { PlainSpecEditor } from './PlainSpecEditor';

// CodeMirror is loaded when the dialog first opens: it isn't needed to start the app.
const SpecEditor = lazy(() => import('./SpecEditor'));

/**
 * What the user last typed, so closing the dialog by mistake loses nothing; undefined
 * while the text is the template (which then follows the node picked).
 */
let draft: string | undefined;

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

/** How the last Run went wrong, kept until the text changes or the node does. */
interface RunFailure {
  readonly error: AppErrorData;
  /** The steps of the text that was run, to show the error beside the one that failed. */
  readonly steps: readonly RunStepLine[];
}

/**
 * A failed run, step by step: the ones done, the one that failed with the runtime's
 * error beside it, the ones not reached, and what was undone.
 */
function RunSteps({ failure }: { failure: RunFailure }) {
  // Run was disabled while it ran, which took the focus: it comes back here, to the news.
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => list.current?.focus(), [failure]);
  const failedAt = failure.steps.findIndex((step) => step.id === failure.error.step);
  return (
    <div ref={list} tabIndex={-1} className="run-failure">
      {failedAt < 0 ? (
        <ErrorBanner error={failure.error} title="The pod could not run" />
      ) : (
        <StepList failure={failure} failedAt={failedAt} />
      )}
    </div>
  );
}

function StepList({ failure, failedAt }: { failure: RunFailure; failedAt: number }) {
  return (
    <ol className="run-steps" aria-label="Run steps">
      {failure.steps.map((step, index) => {
        const state = index < failedAt ? 'done' : index === failedAt ? 'failed' : 'skipped';
        return (
          <li
            key={step.id}
            className={`run-step ${state}`}
            aria-current={state === 'failed' ? 'step' : undefined}
          >
            <span className="run-step-mark" aria-hidden>
              {state === 'done' ? '✓' : state === 'failed' ? '✗' : '·'}
            </span>
            <span className="run-step-body">
              <span className="run-step-label">
                {step.label}
                <span className="visually-hidden">
                  {state === 'done' ? ' (done)' : state === 'failed' ? ' (failed)' : ' (not run)'}
                </span>
              </span>
              {state === 'failed' && (
                <span className="run-step-error" role="alert">
                  <span>{failure.error.message}</span>
                  {failure.error.hint !== undefined && (
                    <span className="muted">{failure.error.hint}</span>
                  )}
                  <ErrorDetail detail={failure.error.detail} />
                </span>
              )}
            </span>
          </li>
        );
      })}
    </ol>
  );
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
  const nodeName = nodes.find((node) => node.nodeId === nodeId)?.name;
  const [driver, setDriver] = useState<CgroupDriverInfo | undefined>();
  const [template, setTemplate] = useState(() => starterSpec());
  const [text, setText] = useState(() => draft ?? template);
  const [failure, setFailure] = useState<RunFailure | undefined>();
  const [validation, setValidation] = useState<Validation>({ state: 'checking' });
  const [running, setRunning] = useState(false);
  const [reveal, setReveal] = useState<{ line: number; column?: number } | undefined>();
  const latest = useRef(0);

  // The template suits the node picked: its cgroup driver decides the pod's cgroup parent.
  // Text the user changed is theirs, and stays.
  const untouched = useRef(draft === undefined);
  const freshTemplate = useCallback(
    (cgroupDriver: CgroupDriverInfo | undefined): string => {
      const next = starterSpec({ name: nodeName ?? nodeId, ...(cgroupDriver && { cgroupDriver }) });
      setTemplate(next);
      return next;
    },
    [nodeId, nodeName],
  );
  useEffect(() => {
    if (nodeId === '') return undefined;
    let current = true;
    const build = (cgroupDriver?: CgroupDriverInfo): void => {
      if (!current) return;
      setDriver(cgroupDriver);
      const next = freshTemplate(cgroupDriver);
      if (untouched.current) setText(next);
    };
    // A runtime that can't say leaves the template in the cgroupfs form, which it says.
    model.client.services.lifecycle.cgroupDriver(nodeId).then(build, () => build());
    return () => {
      current = false;
    };
  }, [model, nodeId, freshTemplate]);

  const edit = (next: string): void => {
    untouched.current = next === template;
    setText(next);
  };

  // Validate as the user types, debounced; a slow answer for old text is ignored.
  useEffect(() => {
    draft = untouched.current ? undefined : text;
    setFailure(undefined);
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

  // A failed run is told here, beside the step that failed, not in a toast.
  const run = async (): Promise<void> => {
    if (running || nodeId === '') return;
    setRunning(true);
    setFailure(undefined);
    const podName = specPodName(text) ?? 'the pod';
    const steps = runSteps(text);
    let result;
    try {
      result = await model.client.services.lifecycle.runFromSpec(nodeId, text);
    } catch (error) {
      setFailure({ error: toAppErrorData(error), steps });
      return;
    } finally {
      setRunning(false);
    }
    const count = result.containerIds.length;
    model.toasts.getState().show({
      tone: 'success',
      title: `Started ${podName}${count > 0 ? ` with ${plural(count, 'container')}` : ''}`,
    });
    draft = undefined;
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
    onChange: edit,
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
          <Button icon="copy" onClick={copyScript}>
            Copy as crictl
          </Button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              untouched.current = true;
              setText(freshTemplate(driver));
            }}
          >
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
        <div
          className={valid && failure === undefined ? 'spec-status ok' : 'spec-status'}
          role="status"
          aria-live="polite"
        >
          {validation.state === 'checking' && (
            <>
              <span className="spinner" /> Checking…
            </>
          )}
          {valid && failure === undefined && (
            <>
              <Icon name="check" size={14} /> The spec is valid.
            </>
          )}
          {valid && failure !== undefined && (
            <span className="field-error">
              <Icon name="alert" size={14} />{' '}
              {failure.error.step === undefined
                ? 'The spec is valid, but it could not run: see below.'
                : failure.error.step === 'pod'
                  ? 'The spec is valid, but the runtime refused the pod: see the step marked below.'
                  : 'The spec is valid, but running it failed at the step marked below; the pod was removed again.'}
            </span>
          )}
          {validation.state === 'done' && !valid && (
            <span className="field-error">
              {problems.length} {problems.length === 1 ? 'problem' : 'problems'} to fix before it
              can run:
            </span>
          )}
        </div>
        {failure !== undefined && <RunSteps failure={failure} />}
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
