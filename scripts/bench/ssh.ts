/**
 * SSH bench: the local exec and port-forward figures again, with the node behind a real
 * OpenSSH server on 127.0.0.1 (test/support/sshd.ts) in front of the lab's containerd —
 * CRI through the bridge socket, stream URLs through the SSH dialer. Same methods as
 * exec.ts and portforward.ts, so the figures compare (MB = 10^6 bytes):
 *
 * - ssh_exec_stdout_mbps   100 MiB of random bytes through `cat` over SPDY, streams ready
 *                          to last byte, median of 3
 * - ssh_echo_rtt_p50_ms    one-line round trips through one `cat` over SPDY (1000, after
 *                          20 warm-up rounds); also ssh_echo_rtt_p99_ms
 * - ssh_pf_download_mbps   100 MiB GET through a SPDY port-forward, connect to last byte,
 *                          by an HTTP client in a worker thread (a browser or curl is
 *                          another process: it must not share our event loop), median of 3
 *
 * Needs the lab (`npm run lab -- up`) and root (sshd, PermitRootLogin). Run alone:
 * `tsx scripts/bench/ssh.ts [--runtime 1.6]` (prints JSON).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CriClient } from '../../electron/core/base/cri';
import { ForwardSupervisor } from '../../electron/core/features/forwards';
import { SshNodeConnection } from '../../electron/core/base/ssh';
import { openRemoteCommand, type RemoteCommand } from '../../electron/core/base/streaming';
import {
  TEST_NAMESPACE,
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
  matchesRuntime,
} from '../../test/support/lab';
import { Sshd, generateKey } from '../../test/support/sshd';
import { echoRoundTrips } from './echo';
import { countBytes, mbps, median, percentile, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const MiB = 1024 * 1024;
const BIG = 100 * MiB;
const ECHO_ROUNDS = 1000;
const REPEATS = 3;

interface Node {
  readonly cri: CriClient;
  readonly connection: SshNodeConnection;
  readonly containerId: string;
  readonly podName: string;
}

export interface SshBenchOptions {
  /** Default: the first lab runtime. */
  readonly runtime?: LabRuntime;
  readonly log?: (line: string) => void;
}

/** The figures as name → value (units follow the names: `_mbps` MB/s, `_ms` ms). */
export async function runSshBench(options: SshBenchOptions = {}): Promise<Record<string, number>> {
  const figures = await measure(options);
  return Object.fromEntries(figures.map((figure) => [figure.name, figure.value]));
}

/** For the registry: `{ name: 'ssh', run }` with the runner's runtime. */
export const sshBench: BenchModule = {
  name: 'ssh',
  run: (context: BenchContext) => measure(context),
};

/** The lab's node behind a real sshd, as Porthole reaches it and as `ssh` does. */
export interface SshNode {
  readonly connection: SshNodeConnection;
  /** The Host in `configPath`: `ssh -F configPath host …` reaches the node. */
  readonly host: string;
  /** An ssh_config with the host, its port, user and key; its known_hosts beside it. */
  readonly configPath: string;
  dispose(): Promise<void>;
}

export async function openSshNode(runtime: LabRuntime): Promise<SshNode> {
  const dir = await mkdtemp(join(tmpdir(), 'porthole-bench-ssh-'));
  const key = await generateKey(join(dir, 'id_ed25519'));
  const sshd = await Sshd.create({ authorizedKeys: [key.publicKey] });
  const knownHostsPath = join(dir, 'known_hosts');
  await writeFile(knownHostsPath, `${sshd.knownHostsLine}\n`);
  const configPath = join(dir, 'ssh_config');
  await writeFile(
    configPath,
    `Host bench-node\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n` +
      `  UserKnownHostsFile ${knownHostsPath}\n  StrictHostKeyChecking yes\n  BatchMode yes\n`,
  );
  const cleanUp = async (): Promise<void> => {
    await sshd.dispose();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const connection = await SshNodeConnection.connect({
      target: { kind: 'ssh', host: 'bench-node', runtimeEndpoint: runtime.endpoint },
      configPaths: [configPath],
      knownHostsPath,
      globalKnownHostsPaths: [],
      agentSocket: null,
      confirmHostKey: () => Promise.reject(new Error('The bench knows its host key.')),
    });
    return {
      connection,
      host: 'bench-node',
      configPath,
      dispose: async () => {
        connection.dispose();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

async function measure(options: SshBenchOptions): Promise<BenchFigure[]> {
  const runtime = options.runtime ?? labRuntimes()[0];
  if (runtime === undefined) throw new Error('The lab has no runtime.');
  const log = options.log ?? (() => {});
  const ssh = await openSshNode(runtime);
  const connection = ssh.connection;
  let cri: CriClient | undefined;
  let podId: string | undefined;
  try {
    cri = CriClient.create({ endpoint: connection.endpoint, timeoutMs: 60_000 });
    const podName = `bench-ssh-${randomBytes(3).toString('hex')}`;
    const sandbox = podSandboxConfig(podName, { runtime });
    podId = await cri.runPod(sandbox);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('web', [
        'sh',
        '-c',
        `mkdir -p /www && head -c ${BIG} /dev/urandom > /www/big && touch /www/ready && exec httpd -f -p 8080 -h /www`,
      ]),
      sandbox,
    );
    await cri.startContainer(containerId);
    await waitFor(
      async () =>
        (await cri!.execSync(containerId, ['test', '-e', '/www/ready'], 10)).exitCode === 0,
    );
    const node: Node = { cri, connection, containerId, podName };

    const stdout: number[] = [];
    for (let i = 0; i < REPEATS; i++) stdout.push(await execStdoutMbps(node));
    log(`exec stdout MB/s: ${stdout.map((v) => round(v, 1)).join(', ')}`);
    const rtts = await echoRtts(node);
    log(`echo: p50 ${round(percentile(rtts, 50), 3)} ms, p99 ${round(percentile(rtts, 99), 3)} ms`);
    const downloads = await portForwardMbps(node);
    log(`port-forward download MB/s: ${downloads.map((v) => round(v, 1)).join(', ')}`);
    return [
      { name: 'ssh_exec_stdout_mbps', value: round(median(stdout), 1), unit: 'MB/s' },
      { name: 'ssh_echo_rtt_p50_ms', value: round(percentile(rtts, 50), 3), unit: 'ms' },
      { name: 'ssh_echo_rtt_p99_ms', value: round(percentile(rtts, 99), 3), unit: 'ms' },
      { name: 'ssh_pf_download_mbps', value: round(median(downloads), 1), unit: 'MB/s' },
    ];
  } finally {
    if (podId !== undefined) {
      await cri?.stopPod(podId).catch(() => undefined);
      await cri?.removePod(podId).catch(() => undefined);
    }
    cri?.dispose();
    await ssh.dispose();
  }
}

function exec(node: Node, cmd: readonly string[], stdin: boolean): Promise<RemoteCommand> {
  return openRemoteCommand({
    cri: node.cri,
    kind: 'exec',
    containerId: node.containerId,
    cmd,
    tty: false,
    stdin,
    stdout: true,
    stderr: false,
    transport: 'spdy',
    dialer: node.connection.dialer,
  });
}

async function execStdoutMbps(node: Node): Promise<number> {
  const session = await exec(node, ['cat', '/www/big'], false);
  const started = performance.now();
  const bytes = await countBytes(session.stdout!);
  const ms = performance.now() - started;
  const result = await session.result;
  session.dispose();
  if (result.exitCode !== 0 || bytes !== BIG) {
    throw new Error(`exec cat: exit ${result.exitCode}, ${bytes} of ${BIG} bytes`);
  }
  return mbps(bytes, ms);
}

async function echoRtts(node: Node): Promise<number[]> {
  const session = await exec(node, ['cat'], true);
  try {
    return await echoRoundTrips(session, ECHO_ROUNDS);
  } finally {
    session.dispose();
  }
}

async function portForwardMbps(node: Node): Promise<number[]> {
  const supervisor = new ForwardSupervisor({ runtime: node.cri, dialer: node.connection.dialer });
  try {
    const forward = await supervisor.start({
      target: { kind: 'pod', namespace: TEST_NAMESPACE, name: node.podName },
      ports: [{ localPort: 0, remotePort: 8080 }],
      transport: 'spdy',
    });
    const port = forward.ports[0]!.localPort;
    const runs: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const { bytes, ms } = await downloadInWorker(port, '/big');
      if (bytes !== BIG) throw new Error(`port-forward: ${bytes} of ${BIG} bytes`);
      runs.push(mbps(bytes, ms));
    }
    return runs;
  } finally {
    supervisor.dispose();
  }
}

/** An HTTP/1.0 GET in a worker thread, done at Content-Length: `{ bytes, ms }`. */
const DOWNLOAD = `
const { workerData, parentPort } = require('node:worker_threads');
const { connect } = require('node:net');
const started = performance.now();
const socket = connect({ host: '127.0.0.1', port: workerData.port, noDelay: true });
let head = Buffer.alloc(0), expected = -1, body = 0;
socket.on('data', (chunk) => {
  if (expected < 0) {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    expected = Number(/content-length: *(\\d+)/i.exec(head.subarray(0, end).toString())[1]);
    body = head.length - end - 4;
  } else {
    body += chunk.length;
  }
  if (body >= expected) {
    socket.destroy();
    parentPort.postMessage({ bytes: body, ms: performance.now() - started });
  }
});
socket.on('error', (error) => parentPort.postMessage({ error: String(error) }));
socket.on('end', () => parentPort.postMessage({ error: 'EOF after ' + body + ' bytes' }));
socket.write('GET ' + workerData.path + ' HTTP/1.0\\r\\n\\r\\n');
`;

export function downloadInWorker(
  port: number,
  path: string,
): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(DOWNLOAD, { eval: true, workerData: { port, path } });
    worker.once('message', (message: { bytes: number; ms: number } | { error: string }) => {
      void worker.terminate();
      if ('error' in message) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('The bench pod did not become ready.');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wanted = process.argv[process.argv.indexOf('--runtime') + 1];
  const runtime = process.argv.includes('--runtime')
    ? labRuntimes().find((r) => matchesRuntime(r, wanted))
    : undefined;
  runSshBench({
    ...(runtime !== undefined && { runtime }),
    log: (line) => console.error(line),
  }).then(
    (results) => console.log(JSON.stringify(results, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
