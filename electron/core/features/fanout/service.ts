/**
 * The `fanout` service and event over the FanoutManager: every argument checked and
 * bounded before it reaches a node.
 */
import type { CallContext, ServiceHandler } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type {
  FanoutMode,
  FanoutRequest,
  FanoutRow,
  FanoutRunInfo,
  FanoutTargets,
} from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import type { FanoutManager, SettledRequest } from './manager';

function invalid(message: string): AppError {
  return new AppError({ code: 'invalid-argument', message });
}

function stringList(value: unknown, name: string, max: number, maxLength = 4096): string[] {
  if (!Array.isArray(value)) throw invalid(`${name} must be a list.`);
  if (value.length > max) throw invalid(`${name} has more than ${max} entries.`);
  return value.map((item, index) => requireString(item, `${name}[${index}]`, maxLength));
}

function nodeIds(value: unknown): { nodeIds?: string[] } {
  return value === undefined ? {} : { nodeIds: stringList(value, 'nodeIds', 256) };
}

export function toTargets(value: unknown): FanoutTargets {
  const targets = requireObject(value, 'targets');
  switch (targets.kind) {
    case 'selection': {
      if (!Array.isArray(targets.containers)) throw invalid('containers must be a list.');
      if (targets.containers.length === 0) throw invalid('No container is selected.');
      if (targets.containers.length > fanoutLimits.maxTargets) {
        throw invalid(`At most ${fanoutLimits.maxTargets} containers can be selected.`);
      }
      return {
        kind: 'selection',
        containers: targets.containers.map((item: unknown, index) => {
          const ref = requireObject(item, `containers[${index}]`);
          return {
            nodeId: requireString(ref.nodeId, `containers[${index}].nodeId`),
            containerId: requireString(ref.containerId, `containers[${index}].containerId`, 256),
          };
        }),
      };
    }
    case 'labels':
      return {
        kind: 'labels',
        selector: requireString(targets.selector, 'selector', 1024),
        ...nodeIds(targets.nodeIds),
      };
    case 'name':
      return {
        kind: 'name',
        pattern: requireString(targets.pattern, 'pattern', 256),
        ...nodeIds(targets.nodeIds),
      };
    default:
      throw invalid('targets.kind must be selection, labels or name.');
  }
}

const modes: readonly FanoutMode[] = ['auto', 'sync', 'stream'];

export function toRequest(value: unknown): SettledRequest {
  const request = requireObject(value, 'request');
  const command = stringList(
    request.command,
    'command',
    fanoutLimits.maxCommandArgs,
    fanoutLimits.maxCommandLength,
  );
  if (command.length === 0) throw invalid('The command is empty.');
  if (command.reduce((sum, word) => sum + word.length, 0) > fanoutLimits.maxCommandLength) {
    throw invalid('The command is too long.');
  }
  const mode = request.mode ?? 'auto';
  if (typeof mode !== 'string' || !modes.includes(mode as FanoutMode)) {
    throw invalid('mode must be auto, sync or stream.');
  }
  const timeoutSeconds =
    request.timeoutSeconds === undefined
      ? fanoutLimits.defaultTimeoutSeconds
      : requireNonNegativeInteger(request.timeoutSeconds, 'timeoutSeconds');
  if (timeoutSeconds > fanoutLimits.maxTimeoutSeconds) throw invalid('timeoutSeconds is too long.');
  const concurrency =
    request.concurrency === undefined
      ? fanoutLimits.defaultConcurrency
      : requireNonNegativeInteger(request.concurrency, 'concurrency');
  if (concurrency < 1 || concurrency > fanoutLimits.maxConcurrency) {
    throw invalid(`concurrency must be 1…${fanoutLimits.maxConcurrency}.`);
  }
  return {
    targets: toTargets(request.targets),
    command,
    mode: mode as FanoutMode,
    timeoutSeconds,
    concurrency,
  };
}

export class FanoutServiceImpl implements ServiceHandler<'fanout'> {
  constructor(private readonly manager: FanoutManager) {}

  async preview(targets: FanoutTargets, context?: CallContext): Promise<readonly FanoutRow[]> {
    const checked = toTargets(targets);
    return await this.manager.preview(checked, signalOf(context));
  }

  async start(request: FanoutRequest, context?: CallContext): Promise<FanoutRunInfo> {
    const checked = toRequest(request);
    return await this.manager.start(checked, signalOf(context));
  }

  // The dispatcher turns what these throw into the call's rejection.
  cancel(runId: string): Promise<void> {
    this.manager.cancel(requireString(runId, 'runId', 64));
    return Promise.resolve();
  }

  exportJsonLines(runId: string): Promise<string> {
    return Promise.resolve(this.manager.exportJsonLines(requireString(runId, 'runId', 64)));
  }

  close(runId: string): Promise<void> {
    this.manager.close(requireString(runId, 'runId', 64));
    return Promise.resolve();
  }
}

function signalOf(context: CallContext | undefined): AbortSignal {
  // The platform's AbortSignal at run time (see AbortSignalLike).
  return (context?.signal as AbortSignal | undefined) ?? new AbortController().signal;
}
