/**
 * Stopping and starting a lab runtime from a test, on the same socket, as a crash, an
 * upgrade or a reboot would (scripts/lab/restart.ts does the work, under the lab's lock,
 * and keeps lab.json up to date). The integration and e2e files run one at a time, so a
 * test may take a runtime down; it must bring it back before it ends: `restoreRuntime` in
 * an `afterAll` does, whatever happened in between.
 */
import { setQuiet } from '../../scripts/lab/log';
import {
  startLabRuntime,
  stopLabRuntime,
  type StartedRuntime,
  type StopSignal,
  type StoppedRuntime,
} from '../../scripts/lab/restart';
import { runningPid } from '../../scripts/lab/daemon';
import { runtimeDirs } from '../../scripts/lab/state';
import type { LabRuntimeId } from './lab';

export type { StartedRuntime, StoppedRuntime } from '../../scripts/lab/restart';

// The lab's progress lines are for its CLI, not for test output.
setQuiet(true);

/** Kills the runtime's containerd (SIGKILL: its pods keep running, as after a crash). */
export function stopRuntime(
  id: LabRuntimeId,
  signal: StopSignal = 'SIGKILL',
): Promise<StoppedRuntime> {
  return stopLabRuntime(id, signal);
}

/** Starts it again on the same socket; resolves once its CRI is ready. */
export function startRuntime(id: LabRuntimeId): Promise<StartedRuntime> {
  return startLabRuntime(id);
}

/** Starts the runtime again if a test left it stopped. */
export async function restoreRuntime(id: LabRuntimeId): Promise<void> {
  if ((await runningPid(runtimeDirs(id))) === undefined) await startLabRuntime(id);
}
