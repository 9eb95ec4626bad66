/**
 * Exec bench against the lab (MB = 10^6 bytes):
 * - exec_stdout_mbps_spdy / _ws   100 MiB of random bytes through `cat` (a file made once),
 *                                 streams ready to last byte, median of 3
 * - exec_stdin_mbps_spdy          10 MiB of random stdin into `cat >/dev/null`, first byte
 *                                 to the exit status (EOF seen), median of 3
 * - echo_rtt_p50/p99_ms_spdy/_ws  1000 one-line round trips through one `cat`
 * - exec_setup_p50_ms             Exec RPC + upgrade + streams ready (transport auto, 30 runs)
 * - exec_rss_peak_mb              peak RSS of this process during the bench
 *
 * Run alone: `tsx scripts/bench/exec.ts [--runtime 1.6]` (prints JSON).
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { CriClient } from '../../electron/core/base/cri';
import {
  openRemoteCommand,
  type RemoteCommandOptions,
  type RemoteCommand,
  type TransportKind,
} from '../../electron/core/base/streaming';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  createLabContainer,
  matchesRuntime,
} from '../../test/support/lab';
import { echoRoundTrips } from './echo';
import { countBytes, mbps, median, percentile, round, sampleRss } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const MiB = 1024 * 1024;
const STDOUT_BYTES = 100 * MiB;
const STDIN_BYTES = 10 * MiB;
const ECHO_ROUNDS = 1000;
const SETUP_RUNS = 30;
const REPEATS = 3;

const short: Record<TransportKind, string> = { spdy: 'spdy', websocket: 'ws' };

interface Lab {
  readonly cri: CriClient;
  readonly containerId: string;
}

function exec(
  lab: Lab,
  cmd: readonly string[],
  flags: Partial<RemoteCommandOptions> = {},
): Promise<RemoteCommand> {
  return openRemoteCommand({
    cri: lab.cri,
    kind: 'exec',
    containerId: lab.containerId,
    cmd,
    tty: false,
    stdin: false,
    stdout: true,
    stderr: false,
    ...flags,
  });
}

async function ok(session: RemoteCommand, what: string): Promise<void> {
  const result = await session.result;
  if (result.exitCode !== 0)
    throw new Error(`${what}: exit ${result.exitCode} (${result.message})`);
}

interface Transfer {
  readonly mbps: number;
  /** CPU this process spent (user + system): what the client costs, whatever the load. */
  readonly cpuMs: number;
}

async function stdoutMbps(lab: Lab, transport: TransportKind): Promise<Transfer> {
  const session = await exec(lab, ['cat', '/tmp/big'], { transport });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const bytes = await countBytes(session.stdout!);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await ok(session, 'cat /tmp/big');
  if (bytes !== STDOUT_BYTES) throw new Error(`stdout: ${bytes} of ${STDOUT_BYTES} bytes`);
  return { mbps: mbps(bytes, ms), cpuMs: (used.user + used.system) / 1000 };
}

async function stdinMbps(lab: Lab, transport: TransportKind, input: Buffer): Promise<number> {
  const session = await exec(lab, ['sh', '-c', 'cat >/dev/null'], {
    transport,
    stdin: true,
    stdout: false,
    stderr: true,
  });
  session.stderr!.resume();
  const started = performance.now();
  session.stdin!.end(input);
  await ok(session, 'cat >/dev/null');
  return mbps(input.length, performance.now() - started);
}

/** Round trips of one short line through `cat`, timed from write to the echo's arrival. */
async function echoRtts(lab: Lab, transport: TransportKind): Promise<number[]> {
  const session = await exec(lab, ['cat'], { transport, stdin: true });
  try {
    return await echoRoundTrips(session, ECHO_ROUNDS);
  } finally {
    session.dispose();
  }
}

async function setupMs(lab: Lab): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SETUP_RUNS + 3; i++) {
    const started = performance.now();
    const session = await exec(lab, ['true'], { transport: 'auto' });
    const ms = performance.now() - started;
    session.stdout!.resume();
    await ok(session, 'true');
    if (i >= 3) times.push(ms);
  }
  return times;
}

export async function runExecBench(context: BenchContext): Promise<BenchFigure[]> {
  const { runtime, log } = context;
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
  const pod = podSandboxConfig(`exec-bench-${randomBytes(3).toString('hex')}`, { runtime });
  let podId: string | undefined;
  const rss = sampleRss();
  try {
    podId = await cri.runPod(pod);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('bench', ['sleep', '3600']),
      pod,
    );
    await cri.startContainer(containerId);
    const made = await cri.execSync(containerId, [
      'sh',
      '-c',
      `head -c ${STDOUT_BYTES} /dev/urandom > /tmp/big`,
    ]);
    if (made.exitCode !== 0) throw new Error('could not create /tmp/big in the bench container');
    const lab: Lab = { cri, containerId };
    const figures: BenchFigure[] = [];

    for (const transport of ['spdy', 'websocket'] as const) {
      const transfers: Transfer[] = [];
      for (let i = 0; i < REPEATS; i++) transfers.push(await stdoutMbps(lab, transport));
      const runs = transfers.map((t) => t.mbps);
      log(
        `${transport} stdout MB/s: ${runs.map((v) => round(v, 1)).join(', ')} ` +
          `(client CPU per 100 MiB: ${transfers.map((t) => round(t.cpuMs, 0)).join(', ')} ms)`,
      );
      figures.push({
        name: `exec_stdout_mbps_${short[transport]}`,
        value: round(median(runs), 1),
        unit: 'MB/s',
        ...(transport === 'spdy' && { target: { op: '>=', value: 250 } }),
      });
    }

    const input = randomBytes(STDIN_BYTES);
    const stdinRuns: number[] = [];
    for (let i = 0; i < REPEATS; i++) stdinRuns.push(await stdinMbps(lab, 'spdy', input));
    log(`spdy stdin MB/s: ${stdinRuns.map((v) => round(v, 1)).join(', ')}`);
    figures.push({
      name: 'exec_stdin_mbps_spdy',
      value: round(median(stdinRuns), 1),
      unit: 'MB/s',
    });

    for (const transport of ['spdy', 'websocket'] as const) {
      const rtts = await echoRtts(lab, transport);
      const suffix = short[transport];
      log(
        `${transport} echo: p50 ${round(percentile(rtts, 50), 3)} ms, p99 ${round(percentile(rtts, 99), 3)} ms, max ${round(Math.max(...rtts), 3)} ms`,
      );
      figures.push(
        {
          name: `echo_rtt_p50_ms_${suffix}`,
          value: round(percentile(rtts, 50), 3),
          unit: 'ms',
          target: { op: '<=', value: 0.3 },
        },
        {
          name: `echo_rtt_p99_ms_${suffix}`,
          value: round(percentile(rtts, 99), 3),
          unit: 'ms',
          target: { op: '<=', value: 2 },
        },
      );
    }

    const setups = await setupMs(lab);
    log(`setup: p50 ${round(median(setups))} ms, p99 ${round(percentile(setups, 99))} ms`);
    figures.push({
      name: 'exec_setup_p50_ms',
      value: round(median(setups)),
      unit: 'ms',
      target: { op: '<=', value: 15 },
    });

    rss.stop();
    log(`rss: ${round(rss.start / 1e6, 1)} MB at start, ${round(rss.peak / 1e6, 1)} MB peak`);
    figures.push({ name: 'exec_rss_peak_mb', value: round(rss.peak / 1e6, 1), unit: 'MB' });
    return figures;
  } finally {
    rss.stop();
    if (podId !== undefined) {
      await cri.stopPod(podId).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    cri.dispose();
  }
}

export const execBench: BenchModule = { name: 'exec', run: runExecBench };

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const index = process.argv.indexOf('--runtime');
  const wanted = index >= 0 ? process.argv[index + 1] : 'containerd-2';
  const runtime = labRuntimes().find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted}.`);
  const figures = await runExecBench({ runtime, log: (line) => console.error(line) });
  console.log(JSON.stringify(figures, null, 2));
}
