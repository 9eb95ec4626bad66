/**
 * A runtime's refusals, in words: what the user tried, what the runtime said, and what can
 * be done. The runtime's own text goes to `detail`; `step` says which step failed.
 */
import { AppError, isAppError, toAppErrorData } from '../../../../shared/errors';
import type { ContainerRefusals } from '../terminals';

export type DebugStep = 'target' | 'sandbox' | 'pull' | 'create' | 'start' | 'namespace';

function runtimeText(error: unknown): string {
  const data = toAppErrorData(error);
  return [data.message, data.detail].filter(Boolean).join(': ');
}

/** The runtime's words suggest it does not know `NamespaceMode.TARGET`. */
function refusesTarget(text: string): boolean {
  return /target/i.test(text) && /namespace|pid|mode|unsupported|not supported/i.test(text);
}

/** The target container is gone or not running: a debug container needs its processes. */
export const targetRefusals: ContainerRefusals = {
  notFound: (id, nodeName) => ({ message: `There is no container ${id} on ${nodeName} to debug.` }),
  notRunning: (detail, name) => ({
    message: `${name} is ${detail.state}: only a running container has processes to debug.`,
  }),
  step: 'target' satisfies DebugStep,
};

export function pullRefused(error: unknown, image: string): AppError {
  if (isAppError(error) && error.code === 'cancelled') return error;
  return new AppError(
    {
      code: isAppError(error) ? error.code : 'unknown',
      message: `The toolbox image ${image} could not be pulled.`,
      detail: runtimeText(error),
      hint: 'Check the name and that the node can reach its registry, or name an image the node has (Images).',
      step: 'pull',
    },
    { cause: error },
  );
}

export function createRefused(error: unknown, targetName: string, runtime: string): AppError {
  if (isAppError(error) && error.code === 'cancelled') return error;
  const text = runtimeText(error);
  if (refusesTarget(text)) return targetUnsupported(runtime, targetName, text);
  if (isAppError(error) && error.code === 'not-found') {
    return new AppError(
      {
        code: 'not-found',
        message: `${targetName} or its pod sandbox is gone: there is nothing to debug.`,
        detail: text,
        step: 'create',
      },
      { cause: error },
    );
  }
  return new AppError(
    {
      code: isAppError(error) ? error.code : 'unknown',
      message: `${runtime} refused to create the debug container beside ${targetName}.`,
      detail: text,
      step: 'create',
    },
    { cause: error },
  );
}

export function startRefused(error: unknown, runtime: string): AppError {
  if (isAppError(error) && error.code === 'cancelled') return error;
  const text = runtimeText(error);
  return new AppError(
    {
      code: isAppError(error) ? error.code : 'unknown',
      message: `${runtime} could not start the debug container; it was removed again.`,
      detail: text,
      ...(/executable|no command|not found/i.test(text) && {
        hint: 'The image has no command to run: name a toolbox image with a shell (busybox).',
      }),
      step: 'start',
    },
    { cause: error },
  );
}

export function targetUnsupported(runtime: string, targetName: string, detail: string): AppError {
  return new AppError({
    code: 'unimplemented',
    message: `${runtime} can't put a container in ${targetName}'s PID namespace (NamespaceMode.TARGET): the debug container was removed again.`,
    detail,
    hint: 'Its files are still reachable from a container that shares the pod’s PID namespace, if the pod has one.',
    step: 'namespace',
  });
}

export function sandboxGone(targetName: string, state: string | undefined): AppError {
  return new AppError({
    code: state === undefined ? 'not-found' : 'failed-precondition',
    message:
      state === undefined
        ? `The pod sandbox of ${targetName} is gone: a debug container needs its pod.`
        : `The pod sandbox of ${targetName} is not ready (${state}): no container can join it.`,
    step: 'sandbox',
  });
}
