/**
 * Porthole side by side with crictl, on the same container in the same run, interleaved
 * (MB = 10^6 bytes). Each key is a ratio, Porthole / crictl: above 1 for a throughput means
 * Porthole is faster, below 1 for a latency too.
 *
 *   vs_crictl_exec_stdout    100 MiB `cat` of a file: Porthole's Exec call to the exit
 *                            status, against crictl's whole process (spawn to exit)
 *   vs_crictl_exec_stdin     100 MiB into `wc -c` (the count checked), the same way
 *   vs_crictl_echo_p50 / _p99   500 one-line round trips through one `cat`
 *   vs_crictl_pf_download    100 MiB GET through a forward, fetched by an HTTP client in a
 *                            worker thread (Porthole's forward is in this process, crictl's
 *                            in its own)
 *   vs_crictl_exec_setup     `exec … true`: Porthole's Exec call to exit against crictl's
 *                            whole process, p50 of 20
 *   exec_stdout_cpu_ms, crictl_exec_stdout_cpu_ms
 *                            CPU (user + system) per 100 MiB of stdout: this process's,
 *                            and crictl's as the OS counts it for a waited-for child
 *
 * Over SSH (the lab's sshd in front of the node), against what people do today:
 *   vs_ssh_crictl_exec_stdout   Porthole's SSH path against `ssh node crictl exec … cat`
 *   vs_ssh_crictl_pf_download   Porthole's forward over SSH against `ssh -L` to a
 *                               `crictl port-forward` on the node
 *
 * crictl is found with `--crictl PATH`, else on PATH, else at ../shared/bin/crictl next to
 * the checkout; without one the bench says so and reports none of these keys. crictl's
 * WebSocket exec is tried once and its answer logged: containerd refuses it (403), since
 * crictl offers only v5 there.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CriClient } from '../../electron/core/base/cri';
import { ForwardSupervisor } from '../../electron/core/features/forwards';
import {
  openRemoteCommand,
  type Dialer,
  type RemoteCommandOptions,
  type RemoteCommand,
} from '../../electron/core/base/streaming';
import {
  TEST_NAMESPACE,
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  matchesRuntime,
  podSandboxConfig,
  type LabRuntime,
} from '../../test/support/lab';
import { echoRoundTrips } from './echo';
import { downloadInWorker, openSshNode } from './ssh';
import { countBytes, mbps, median, percentile, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const MiB = 1024 * 1024;
const BIG = 100 * MiB;
const REPEATS = 3;
const ECHO_ROUNDS = 500;
const SETUP_RUNS = 20;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `--crictl PATH`, else crictl on PATH, else ../shared/bin/crictl beside the checkout. */
export function findCrictl(argv: readonly string[] = process.argv): string | undefined {
  const index = argv.indexOf('--crictl');
  if (index >= 0) {
    const given = argv[index + 1];
    if (given === undefined || !executable(given)) throw new Error(`--crictl ${given}: not found`);
    return resolve(given);
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, 'crictl'))) return join(dir, 'crictl');
  }
  const beside = resolve(import.meta.dirname, '../../../shared/bin/crictl');
  return executable(beside) ? beside : undefined;
}

/** crictl pointed at the lab runtime: the command and its first arguments. */
export function crictlCommand(crictlPath: string, runtime: LabRuntime): [string, ...string[]] {
  const endpoint = runtime.endpoint;
  return [crictlPath, '--runtime-endpoint', endpoint, '--image-endpoint', endpoint];
}

interface Run {
  readonly ms: number;
  readonly stdout: Buffer;
  /** The child's user + system CPU, as the kernel accounts it once it is waited for. */
  readonly cpuMs: number;
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU of this process's waited-for children so far (cutime + cstime), in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}

export function exited(child: ChildProcess): Promise<number> {
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => done(code ?? -1));
  });
}

/** Runs a process to its end: its stdout, wall time and CPU. `input` goes to its stdin. */
export async function runProcess(
  command: string,
  args: readonly string[],
  input?: Buffer,
): Promise<Run> {
  const cpu = childrenCpuMs();
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const code = await exited(child);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${code}: ${stderr.trim()}`);
  return { ms, stdout: Buffer.concat(chunks), cpuMs: childrenCpuMs() - cpu };
}

/** A process that counts its stdout instead of keeping it (100 MiB of `cat`). */
async function countProcess(command: string, args: readonly string[]): Promise<Run> {
  const cpu = childrenCpuMs();
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await exited(child);
  const ms = performance.now() - started;
  if (code !== 0 || bytes !== BIG) {
    throw new Error(`${command}: exit ${code}, ${bytes} of ${BIG} bytes: ${stderr.trim()}`);
  }
  return { ms, stdout: Buffer.alloc(0), cpuMs: childrenCpuMs() - cpu };
}

interface Target {
  readonly cri: CriClient;
  readonly containerId: string;
  readonly dialer?: Dialer;
}

function exec(
  target: Target,
  cmd: readonly string[],
  flags: Partial<RemoteCommandOptions> = {},
): Promise<RemoteCommand> {
  return openRemoteCommand({
    cri: target.cri,
    kind: 'exec',
    containerId: target.containerId,
    cmd,
    tty: false,
    stdin: false,
    stdout: true,
    stderr: false,
    transport: 'spdy',
    ...(target.dialer !== undefined && { dialer: target.dialer }),
    ...flags,
  });
}

async function finished(session: RemoteCommand, what: string): Promise<void> {
  const result = await session.result;
  session.dispose();
  if (result.exitCode !== 0) throw new Error(`${what}: exit ${result.exitCode}`);
}

/** Porthole: the Exec call to the exit status, 100 MiB of stdout counted. */
async function portholeStdout(target: Target): Promise<{ mbps: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const session = await exec(target, ['cat', '/tmp/big']);
  const bytes = await countBytes(session.stdout!);
  await finished(session, 'cat');
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (bytes !== BIG) throw new Error(`stdout: ${bytes} of ${BIG} bytes`);
  return { mbps: mbps(bytes, ms), cpuMs: (used.user + used.system) / 1000 };
}

async function portholeStdin(target: Target, input: Buffer): Promise<number> {
  const started = performance.now();
  const session = await exec(target, ['wc', '-c'], { stdin: true });
  const out: Buffer[] = [];
  session.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  session.stdin!.end(input);
  await finished(session, 'wc -c');
  const ms = performance.now() - started;
  checkCount(Buffer.concat(out), input.length);
  return mbps(input.length, ms);
}

function checkCount(stdout: Buffer, expected: number): void {
  const count = Number(stdout.toString().trim());
  if (count !== expected) throw new Error(`wc -c counted ${count}, not ${expected}`);
}

async function portholeEcho(target: Target): Promise<number[]> {
  const session = await exec(target, ['cat'], { stdin: true });
  try {
    return await echoRoundTrips(session, ECHO_ROUNDS);
  } finally {
    session.dispose();
  }
}

async function crictlEcho(crictl: readonly string[], containerId: string): Promise<number[]> {
  const [command, ...args] = crictl as [string, ...string[]];
  const child = spawn(command, [...args, 'exec', '-i', containerId, 'cat'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    return await echoRoundTrips(child, ECHO_ROUNDS);
  } finally {
    child.stdin.end();
    await exited(child);
  }
}

async function portholeSetup(target: Target): Promise<number> {
  const started = performance.now();
  const session = await exec(target, ['true']);
  session.stdout!.resume();
  await finished(session, 'true');
  return performance.now() - started;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a forwarding process and waits for its "Forwarding from" line. */
async function forwarder(command: string, args: readonly string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no forward after 30 s: ${output}`)), 30_000);
    const seen = (chunk: Buffer): void => {
      output += chunk.toString();
      if (/Forwarding from/.test(output)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      fail(new Error(`${command} ended (${code}) before forwarding: ${output}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child).catch(() => -1);
  child.kill('SIGTERM');
  await done;
}

async function download(port: number): Promise<number> {
  // The forward is up before its local side accepts (ssh -L): try until it answers.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { bytes, ms } = await downloadInWorker(port, '/big');
      if (bytes !== BIG) throw new Error(`download: ${bytes} of ${BIG} bytes`);
      return mbps(bytes, ms);
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
}

async function portholeForward(
  target: Target,
  podName: string,
): Promise<{ port: number; dispose(): void }> {
  const supervisor = new ForwardSupervisor({
    runtime: target.cri,
    ...(target.dialer !== undefined && { dialer: target.dialer }),
  });
  const forward = await supervisor.start({
    target: { kind: 'pod', namespace: TEST_NAMESPACE, name: podName },
    ports: [{ localPort: 0, remotePort: 8080 }],
    transport: 'spdy',
  });
  return { port: forward.ports[0]!.localPort, dispose: () => supervisor.dispose() };
}

const POD_SCRIPT = [
  'mkdir -p /www',
  `head -c ${BIG} /dev/urandom > /www/big`,
  'ln -s /www/big /tmp/big',
  'touch /www/ready',
  'exec httpd -f -p 8080 -h /www',
].join(' && ');

/** One pair of figures: Porthole's and crictl's, runs alternating which goes first. */
export async function interleaved<T>(
  runs: number,
  porthole: () => Promise<T>,
  crictl: () => Promise<T>,
): Promise<{ porthole: T[]; crictl: T[] }> {
  const result = { porthole: [] as T[], crictl: [] as T[] };
  for (let i = 0; i < runs; i += 1) {
    if (i % 2 === 0) {
      result.porthole.push(await porthole());
      result.crictl.push(await crictl());
    } else {
      result.crictl.push(await crictl());
      result.porthole.push(await porthole());
    }
  }
  return result;
}

/** Porthole / crictl, as the vs_crictl keys are given. */
export const ratio = (value: number, reference: number): number => round(value / reference, 2);

export async function runCrictlBench(context: BenchContext): Promise<BenchFigure[]> {
  const { runtime, log } = context;
  const crictlPath = findCrictl();
  if (crictlPath === undefined) {
    log(
      'no crictl found (--crictl PATH, PATH, ../shared/bin/crictl): the vs_crictl keys are skipped',
    );
    return [];
  }
  const endpoint = runtime.endpoint;
  const crictl = crictlCommand(crictlPath, runtime);
  const [command, ...base] = crictl;
  const cri = CriClient.create({ endpoint, timeoutMs: 60_000 });
  const podName = `bench-crictl-${randomBytes(3).toString('hex')}`;
  const sandbox = podSandboxConfig(podName, { runtime });
  let podId: string | undefined;
  const figures: BenchFigure[] = [];
  const push = (name: string, value: number, unit = '', op?: '>=' | '<=', limit?: number): void => {
    figures.push({
      name,
      value,
      unit,
      ...(op !== undefined && limit !== undefined && { target: { op, value: limit } }),
    });
  };
  try {
    podId = await cri.runPod(sandbox);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('web', ['sh', '-c', POD_SCRIPT]),
      sandbox,
    );
    await cri.startContainer(containerId);
    for (let tries = 0; ; tries += 1) {
      const ready = await cri.execSync(containerId, ['test', '-e', '/www/ready'], 10);
      if (ready.exitCode === 0) break;
      if (tries > 300) throw new Error('The bench pod did not become ready.');
      await new Promise((wait) => setTimeout(wait, 100));
    }
    const local: Target = { cri, containerId };
    log(`crictl ${crictlPath} against ${runtime.id}`);

    const stdout = await interleaved(
      REPEATS,
      () => portholeStdout(local),
      async () => {
        const run = await countProcess(command, [...base, 'exec', containerId, 'cat', '/tmp/big']);
        return { mbps: mbps(BIG, run.ms), cpuMs: run.cpuMs };
      },
    );
    const rates = (runs: readonly { mbps: number }[]): string =>
      runs.map((r) => round(r.mbps, 1)).join(', ');
    log(`exec stdout MB/s: porthole ${rates(stdout.porthole)}; crictl ${rates(stdout.crictl)}`);
    const portholeCpu = median(stdout.porthole.map((r) => r.cpuMs));
    const crictlCpu = median(stdout.crictl.map((r) => r.cpuMs));
    push(
      'vs_crictl_exec_stdout',
      ratio(median(stdout.porthole.map((r) => r.mbps)), median(stdout.crictl.map((r) => r.mbps))),
      '×',
      '>=',
      1.1,
    );
    push('exec_stdout_cpu_ms', round(portholeCpu), 'ms');
    push('crictl_exec_stdout_cpu_ms', round(crictlCpu), 'ms');

    const input = randomBytes(BIG);
    const stdin = await interleaved(
      REPEATS,
      () => portholeStdin(local, input),
      async () => {
        const run = await runProcess(
          command,
          [...base, 'exec', '-i', containerId, 'wc', '-c'],
          input,
        );
        checkCount(run.stdout, input.length);
        return mbps(input.length, run.ms);
      },
    );
    log(
      `exec stdin MB/s: porthole ${stdin.porthole.map((v) => round(v, 1)).join(', ')}; ` +
        `crictl ${stdin.crictl.map((v) => round(v, 1)).join(', ')}`,
    );
    push(
      'vs_crictl_exec_stdin',
      ratio(median(stdin.porthole), median(stdin.crictl)),
      '×',
      '>=',
      1.1,
    );

    const echo = await interleaved(
      1,
      () => portholeEcho(local),
      () => crictlEcho(crictl, containerId),
    );
    const echoes = { porthole: echo.porthole[0] ?? [], crictl: echo.crictl[0] ?? [] };
    log(
      `echo p50/p99 ms: porthole ${round(percentile(echoes.porthole, 50), 3)}/${round(percentile(echoes.porthole, 99), 3)}; ` +
        `crictl ${round(percentile(echoes.crictl, 50), 3)}/${round(percentile(echoes.crictl, 99), 3)}`,
    );
    for (const p of [50, 99]) {
      push(
        `vs_crictl_echo_p${p}`,
        ratio(percentile(echoes.porthole, p), percentile(echoes.crictl, p)),
        '×',
        '<=',
        0.9,
      );
    }

    const forwardPorthole = await portholeForward(local, podName);
    const crictlPort = await freePort();
    const crictlForward = await forwarder(command, [
      ...base,
      'port-forward',
      podId,
      `${crictlPort}:8080`,
    ]);
    try {
      const pf = await interleaved(
        REPEATS,
        () => download(forwardPorthole.port),
        () => download(crictlPort),
      );
      log(
        `port-forward MB/s: porthole ${pf.porthole.map((v) => round(v, 1)).join(', ')}; ` +
          `crictl ${pf.crictl.map((v) => round(v, 1)).join(', ')}`,
      );
      push('vs_crictl_pf_download', ratio(median(pf.porthole), median(pf.crictl)), '×', '>=', 1.1);
    } finally {
      forwardPorthole.dispose();
      await stop(crictlForward);
    }

    const setup = await interleaved(
      SETUP_RUNS,
      () => portholeSetup(local),
      async () => (await runProcess(command, [...base, 'exec', containerId, 'true'])).ms,
    );
    log(
      `exec setup p50 ms: porthole ${round(median(setup.porthole))}; crictl ${round(median(setup.crictl))}`,
    );
    push(
      'vs_crictl_exec_setup',
      ratio(median(setup.porthole), median(setup.crictl)),
      '×',
      '<=',
      0.9,
    );

    const ws = await runProcess(command, [
      ...base,
      'exec',
      '--transport',
      'websocket',
      containerId,
      'true',
    ]).then(
      () => 'works',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    log(`crictl exec over WebSocket: ${ws.split('\n').slice(-1)[0]?.slice(0, 300)}`);

    figures.push(...(await overSsh(runtime, crictl, containerId, podId, podName, log)));
    return figures;
  } finally {
    if (podId !== undefined) {
      await cri.stopPod(podId).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    cri.dispose();
  }
}

/** The same container reached over SSH: Porthole's SSH path against ssh + crictl. */
async function overSsh(
  runtime: LabRuntime,
  crictl: readonly string[],
  containerId: string,
  podId: string,
  podName: string,
  log: (line: string) => void,
): Promise<BenchFigure[]> {
  const node = await openSshNode(runtime);
  const cri = CriClient.create({ endpoint: node.connection.endpoint, timeoutMs: 60_000 });
  try {
    const target: Target = { cri, containerId, dialer: node.connection.dialer };
    const ssh = ['-F', node.configPath, node.host];
    const stdout = await interleaved(
      REPEATS,
      async () => (await portholeStdout(target)).mbps,
      async () =>
        mbps(
          BIG,
          (await countProcess('ssh', [...ssh, ...crictl, 'exec', containerId, 'cat', '/tmp/big']))
            .ms,
        ),
    );
    log(
      `ssh exec stdout MB/s: porthole ${stdout.porthole.map((v) => round(v, 1)).join(', ')}; ` +
        `ssh+crictl ${stdout.crictl.map((v) => round(v, 1)).join(', ')}`,
    );
    const forward = await portholeForward(target, podName);
    const localPort = await freePort();
    const remotePort = await freePort();
    // -tt: the remote crictl gets a hangup when this ssh ends.
    const tunnel = await forwarder('ssh', [
      '-tt',
      '-L',
      `${localPort}:127.0.0.1:${remotePort}`,
      ...ssh,
      ...crictl,
      'port-forward',
      podId,
      `${remotePort}:8080`,
    ]);
    try {
      const pf = await interleaved(
        REPEATS,
        () => download(forward.port),
        () => download(localPort),
      );
      log(
        `ssh port-forward MB/s: porthole ${pf.porthole.map((v) => round(v, 1)).join(', ')}; ` +
          `ssh -L + crictl ${pf.crictl.map((v) => round(v, 1)).join(', ')}`,
      );
      return [
        {
          name: 'vs_ssh_crictl_exec_stdout',
          value: ratio(median(stdout.porthole), median(stdout.crictl)),
          unit: '×',
          target: { op: '>=', value: 1 },
        },
        {
          name: 'vs_ssh_crictl_pf_download',
          value: ratio(median(pf.porthole), median(pf.crictl)),
          unit: '×',
          target: { op: '>=', value: 1 },
        },
      ];
    } finally {
      forward.dispose();
      await stop(tunnel);
    }
  } finally {
    cri.dispose();
    await node.dispose();
  }
}

export const crictlBench: BenchModule = { name: 'crictl', run: runCrictlBench };

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const index = process.argv.indexOf('--runtime');
  const wanted = index >= 0 ? process.argv[index + 1] : 'containerd-2';
  const runtime = labRuntimes().find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted}.`);
  const figures = await runCrictlBench({ runtime, log: (line) => console.error(line) });
  console.log(JSON.stringify(figures, null, 2));
}
