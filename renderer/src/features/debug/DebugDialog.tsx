import { useEffect, useRef, useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import { defaultDebugImage } from '../../../../shared/model';
import type { AppModel } from '../../app/model';
import { Dialog, FormActions } from '../../ui/Dialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Field } from '../../ui/Field';
import { terminalsOf } from '../terminal';
import { debugOf } from './store';

export interface DebugTarget {
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly podName?: string;
}

/** The toolbox image last used, for the next dialog (per window). */
let lastImage = defaultDebugImage;

/** Seconds since `since`, ticking while `active`: what a pull shows, since CRI has no progress. */
function useElapsed(active: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!active) return;
    const started = Date.now();
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return seconds;
}

/**
 * "Debug…": a toolbox container beside the target, in its PID namespace, then a terminal
 * in it whose first line says where the target's processes and files are.
 */
function DebugDialog({
  model,
  target,
  reason,
  onClose,
}: {
  model: AppModel;
  target: DebugTarget;
  /** Why it is offered (the shell probe found none), shown above the form. */
  reason?: string;
  onClose: () => void;
}) {
  const [image, setImage] = useState(lastImage);
  const [keep, setKeep] = useState(false);
  const [touched, setTouched] = useState(false);
  const [working, setWorking] = useState(false);
  const [error, setError] = useState<AppErrorData | undefined>();
  const abort = useRef<AbortController | undefined>(undefined);
  const elapsed = useElapsed(working);

  const reference = image.trim();
  const imageError =
    reference === ''
      ? 'Enter a toolbox image, e.g. busybox.'
      : /\s/.test(reference)
        ? 'An image reference has no spaces.'
        : undefined;

  const cancel = (): void => {
    abort.current?.abort();
    onClose();
  };

  const start = async (): Promise<void> => {
    setTouched(true);
    if (imageError !== undefined || working) return;
    setWorking(true);
    setError(undefined);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const started = await model.client.withSignal(controller.signal).debug.start({
        nodeId: target.nodeId,
        targetId: target.containerId,
        image: reference,
        keep,
      });
      lastImage = reference;
      onClose();
      void debugOf(model).refresh();
      void terminalsOf(model).openTerminal({
        nodeId: target.nodeId,
        containerId: started.container.containerId,
        containerName: started.container.containerName,
        ...(target.podName !== undefined && { podName: target.podName }),
        kind: 'exec',
        banner: started.banner,
      });
    } catch (caught) {
      if (!controller.signal.aborted) setError(toAppErrorData(caught));
      setWorking(false);
    }
  };

  return (
    <Dialog
      title={`Debug ${target.containerName}`}
      onClose={cancel}
      onSubmit={() => void start()}
      footer={
        <FormActions
          submitLabel={working ? `Starting… ${elapsed} s` : 'Debug'}
          onCancel={cancel}
          disabled={working}
          working={working}
        />
      }
    >
      <div className="form-grid">
        {reason !== undefined && <p className="muted">{reason}</p>}
        <p className="muted">
          Starts a toolbox container in {target.containerName}&rsquo;s pod, sharing its processes
          (PID namespace), network and IPC, and opens a terminal in it. It is removed when its
          terminal closes, unless you keep it.
        </p>
        <Field
          id="debug-image"
          label="Toolbox image"
          error={touched ? imageError : undefined}
          help="Pulled first when the node lacks it. It needs a shell (busybox has one)."
        >
          <input
            id="debug-image"
            className="input mono"
            data-autofocus
            spellCheck={false}
            value={image}
            aria-invalid={touched && imageError !== undefined}
            onChange={(event) => setImage(event.target.value)}
          />
        </Field>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={keep}
            onChange={(event) => setKeep(event.target.checked)}
          />
          Keep the debug container when its terminal closes
        </label>
        {working && (
          <p className="muted" role="status">
            Starting the debug container (pulling {reference} if the node lacks it)… {elapsed} s
          </p>
        )}
        {error !== undefined && <ErrorBanner error={error} title="Could not debug" />}
      </div>
    </Dialog>
  );
}

export function openDebugDialog(model: AppModel, target: DebugTarget, reason?: string): void {
  model.ui.getState().openDialog({
    key: `debug-${target.nodeId}-${target.containerId}`,
    render: (close) => (
      <DebugDialog
        model={model}
        target={target}
        {...(reason !== undefined && { reason })}
        onClose={close}
      />
    ),
  });
}
