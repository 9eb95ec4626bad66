import type { FanoutMethod, FanoutMode } from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';

/**
 * ExecSync or streaming exec, and why, in the words the grid shows. ExecSync is one call
 * per container whose timeout the runtime enforces (it kills the command), but it returns
 * nothing until the command ends and the runtime holds the whole output in memory;
 * streaming exec shows output as it arrives, has no output limit in the runtime and ends
 * at once on cancel (the streams are closed), at the cost of an upgrade per container.
 * So: ExecSync for short commands, streaming for long ones.
 */
export function chooseMethod(mode: FanoutMode, timeoutSeconds: number): FanoutMethod {
  const limit = fanoutLimits.syncMaxTimeoutSeconds;
  if (mode === 'sync') {
    return {
      method: 'exec-sync',
      reason:
        timeoutSeconds === 0
          ? 'ExecSync, as chosen, without a timeout: a command that never ends holds its slot until cancelled.'
          : `ExecSync, as chosen: the runtime ends each command after ${timeoutSeconds} s.`,
    };
  }
  if (mode === 'stream') {
    return {
      method: 'stream',
      reason:
        'Streaming exec, as chosen: output shows as it arrives, no output limit in the runtime, and Cancel closes the streams at once' +
        (timeoutSeconds === 0 ? '.' : `; Porthole closes them after ${timeoutSeconds} s.`),
    };
  }
  if (timeoutSeconds > 0 && timeoutSeconds <= limit) {
    return {
      method: 'exec-sync',
      reason: `ExecSync: a short command (timeout ${timeoutSeconds} s, at most ${limit} s), one call per container; the runtime ends it at the timeout.`,
    };
  }
  return {
    method: 'stream',
    reason:
      (timeoutSeconds === 0
        ? 'Streaming exec: no timeout, so a long command'
        : `Streaming exec: a long command (timeout ${timeoutSeconds} s, over ${limit} s)`) +
      '; output shows as it arrives, no output limit in the runtime, and Cancel closes the streams at once.',
  };
}
