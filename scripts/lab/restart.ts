/**
 * Restarting one lab runtime on the same socket, as a crash, an upgrade or a node reboot
 * would: its daemon (containerd or crio) is stopped (SIGKILL by default: like a crash, its
 * shims or conmons and the containers keep running), then started again with the same
 * config, and lab.json records the new pid. `npm run lab -- restart` and the recovery tests (test/support/lab-runtime.ts) both
 * come here.
 */
import { readFile } from 'node:fs/promises';
import { CONTAINERD_16, CNI_BIN_DIR, RUNC, ensureContainerd2 } from './apt';
import { type RuntimeBinaries, daemonName, runtimeSpec } from './config';
import { startContainerd } from './containerd';
import { crioBinaries, findCrio, startCrio } from './crio';
import { runningPid, stopProcess } from './daemon';
import { LabError, sleep } from './exec';
import { progress } from './log';
import { acquireLock, cacheDir, isAlive, readLabFile, runtimeDirs, writeLabFile } from './state';
import type { LabRuntimeId } from './types';

export type ContainerdRuntimeId = Exclude<LabRuntimeId, 'cri-o'>;

/** Starts the runtime's daemon with the lab's config again; its pid once its CRI is ready. */
async function startDaemonAgain(id: LabRuntimeId): Promise<number> {
  const spec = runtimeSpec(id);
  const dirs = runtimeDirs(id);
  if (id !== 'cri-o') return startContainerd(spec, dirs, await runtimeBinaries(id));
  // The crio `up` started, as lab.json records it: a restart from another checkout or
  // shell (without PORTHOLE_CRIO_DIR) must not look for it again, or fail to find it.
  const recorded = (await readLabFile())?.runtimes.find((r) => r.id === 'cri-o')?.crio;
  if (recorded !== undefined) return startCrio({ spec, dirs, bins: recorded });
  const lookup = await findCrio();
  if (!lookup.found) throw new LabError(`cri-o: ${lookup.reason}.`);
  return startCrio({ spec, dirs, bins: crioBinaries(lookup.programs, RUNC, CNI_BIN_DIR) });
}

/** The programs a lab runtime runs: Debian 12's containerd 1.6, or the cached 2.x. */
export async function runtimeBinaries(id: ContainerdRuntimeId): Promise<RuntimeBinaries> {
  if (id === 'containerd-1.6') return { ...CONTAINERD_16, runc: RUNC, cniBinDir: CNI_BIN_DIR };
  const c2 = await ensureContainerd2(cacheDir());
  return {
    containerd: c2.containerd,
    ctr: c2.ctr,
    shim: c2.shim,
    runc: RUNC,
    cniBinDir: CNI_BIN_DIR,
  };
}

export type StopSignal = 'SIGKILL' | 'SIGTERM';

export interface StoppedRuntime {
  /** The containerd that was stopped. */
  readonly stoppedPid: number;
  /** When the signal was sent (epoch ms). */
  readonly signalledAt: number;
  /** When it was gone (epoch ms). */
  readonly stoppedAt: number;
}

export interface StartedRuntime {
  readonly pid: number;
  /** When the new containerd was spawned (epoch ms). */
  readonly startedAt: number;
  /** When its CRI reported RuntimeReady and NetworkReady (epoch ms). */
  readonly readyAt: number;
}

/**
 * Dead, or a zombie: killed but not reaped yet (whoever adopted the detached containerd
 * may reap it late), which holds no socket and answers nothing.
 */
async function isGone(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return true;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat === '' || /\) Z /.test(stat);
}

/** Runs `fn` holding the lab lock, so no `up` or `down` changes the runtime meanwhile. */
async function locked<T>(fn: () => Promise<T>): Promise<T> {
  // `up` may hold the lock for a moment (CI starting the lab): wait for it a little.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const release = await acquireLock();
      try {
        return await fn();
      } finally {
        await release();
      }
    } catch (error) {
      if (!(error instanceof LabError) || !/Another lab command/.test(error.message)) throw error;
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/**
 * Stops the runtime's daemon and waits until it is gone. SIGKILL leaves the socket
 * file behind (nothing answers on it), as after a crash; SIGTERM lets containerd remove it.
 */
export function stopLabRuntime(
  id: LabRuntimeId,
  signal: StopSignal = 'SIGKILL',
): Promise<StoppedRuntime> {
  return locked(async () => {
    const dirs = runtimeDirs(id);
    const pid = await runningPid(dirs);
    if (pid === undefined) throw new LabError(`${id} is not running: start the lab first.`);
    progress(`${id}: stopping ${daemonName(runtimeSpec(id))} (pid ${pid}) with ${signal}`);
    const signalledAt = Date.now();
    if (signal === 'SIGTERM') {
      await stopProcess(`${id} ${daemonName(runtimeSpec(id))}`, pid);
    } else {
      process.kill(pid, 'SIGKILL');
      while (!(await isGone(pid))) await sleep(10);
    }
    return { stoppedPid: pid, signalledAt, stoppedAt: Date.now() };
  });
}

/**
 * Starts the runtime's daemon again with its config, on its socket, waits until its CRI
 * is ready, and records the new pid in lab.json. The images and pods it had are still
 * there (they live in its root and in the shims).
 */
export function startLabRuntime(id: LabRuntimeId): Promise<StartedRuntime> {
  return locked(async () => {
    const dirs = runtimeDirs(id);
    if ((await runningPid(dirs)) !== undefined) {
      throw new LabError(`${id} is already running: stop it first.`);
    }
    const info = await readLabFile();
    const known = info?.runtimes.find((runtime) => runtime.id === id);
    if (info === undefined || known === undefined) {
      throw new LabError(`${id} is not part of the lab: run \`npm run lab -- up\` first.`);
    }
    const startedAt = Date.now();
    const pid = await startDaemonAgain(id);
    const readyAt = Date.now();
    // Re-read: another runtime's entry may have changed while this one started.
    const latest = (await readLabFile()) ?? info;
    await writeLabFile({
      ...latest,
      runtimes: latest.runtimes.map((runtime) =>
        runtime.id === id ? { ...runtime, pid } : runtime,
      ),
    });
    progress(`${id}: started again (pid ${pid}), ready after ${readyAt - startedAt} ms`);
    return { pid, startedAt, readyAt };
  });
}

/** Both halves, back to back: how `npm run lab -- restart` restarts a runtime. */
export async function restartLabRuntime(
  id: LabRuntimeId,
  signal: StopSignal = 'SIGKILL',
): Promise<StoppedRuntime & StartedRuntime> {
  const stopped = await stopLabRuntime(id, signal);
  return { ...stopped, ...(await startLabRuntime(id)) };
}
