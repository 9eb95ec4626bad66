/**
 * Port-forward bench against the lab: a busybox httpd pod on the runtime the runner picks,
 * one forward over SPDY (or WebSocket), and an HTTP client in a worker
 * thread, as a browser or curl would be another process: it must not share the forwarder's
 * event loop.
 *
 * Metrics (MB = 10^6 bytes):
 * - pf_download_mbps       100 MiB GET, connect to last byte (median of 3)
 * - pf_upload_mbps         10 MiB to a sink that answers "done" after the last byte (median of 3)
 * - pf_connect_p50_ms/p99  local connect to the first byte of an HTTP reply (200 sequential)
 * - pf_concurrent100_mbps  100 parallel 1 MiB downloads, aggregate
 *
 * In `npm run bench` (registry.ts), or alone:
 * `tsx scripts/bench/portforward.ts [--runtime 1.6] [--transport websocket]`.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CriClient } from '../../electron/core/base/cri';
import { ForwardSupervisor } from '../../electron/core/features/forwards';
import type { ForwardTransportKind } from '../../shared/model';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  createLabContainer,
  matchesRuntime,
} from '../../test/support/lab';
import { mbps, median, percentile, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

export interface PortForwardBenchContext extends BenchContext {
  /** Default: SPDY, what `auto` ends on with containerd. */
  readonly transport?: ForwardTransportKind;
}

const MiB = 1024 * 1024;
const BIG = 100 * MiB;
const MID = MiB;
const UPLOAD = 10 * MiB;
const LATENCY_SAMPLES = 200;
const CONCURRENCY = 100;

const POD_SCRIPT = [
  'set -e',
  'mkdir -p /www',
  `head -c ${BIG} /dev/urandom > /www/big`,
  `head -c ${MID} /dev/urandom > /www/mid`,
  'echo ok > /www/ok',
  // The upload sink: dd reads the socket itself (nc -e), in 1 MiB blocks. busybox httpd's
  // CGI relay tops out near 40 MB/s inside the pod, which would measure httpd, not us.
  `(while true; do nc -l -p 9000 -e sh -c 'dd bs=${MiB} count=${UPLOAD / MiB} iflag=fullblock of=/dev/null 2>/dev/null; echo done'; done) &`,
  'touch /www/ready',
  'exec httpd -f -p 8080 -h /www',
].join('\n');

/**
 * The HTTP client, in plain JavaScript for a worker thread. Each exchange is HTTP/1.0 on a
 * fresh connection and is done at Content-Length (or at the CGI's 64-hex-digit answer), not
 * at EOF: after the pod's side closes, the runtime waits up to 1 s for the client's EOF.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
const { connect } = require('node:net');

function exchange(port, request, isDone) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByte = 0, head = null, pending = Buffer.alloc(0), expected = -1, received = 0, text = '';
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    const finish = () => {
      socket.destroy();
      resolve({ ms: performance.now() - started, firstByteMs: firstByte, bytes: received, text });
    };
    socket.on('data', (chunk) => {
      if (firstByte === 0) firstByte = performance.now() - started;
      let body = chunk;
      if (head === null) {
        pending = Buffer.concat([pending, chunk]);
        const end = /\\r?\\n\\r?\\n/.exec(pending.toString('latin1'));
        if (end === null) return;
        head = pending.subarray(0, end.index).toString('latin1');
        const length = /^content-length: *(\\d+)/im.exec(head);
        expected = length ? Number(length[1]) : -1;
        body = pending.subarray(end.index + end[0].length);
      }
      received += body.length;
      if (text.length < 256) text += body.subarray(0, 256).toString('latin1');
      if ((expected >= 0 && received >= expected) || (isDone && isDone(text))) finish();
    });
    socket.on('error', reject);
    socket.on('end', () => reject(new Error('EOF after ' + received + ' of ' + expected + ' bytes')));
    socket.on('connect', () => { for (const part of request) socket.write(part); });
  });
}

const get = (port, path) => exchange(port, ['GET ' + path + ' HTTP/1.0\\r\\n\\r\\n']);

const ops = {
  async download({ port, path }) { return get(port, path); },
  upload({ port, body }) {
    const data = Buffer.from(body);
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let text = '';
      const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => socket.write(data));
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (!text.includes('done')) return;
        socket.destroy();
        resolve({ ms: performance.now() - started, firstByteMs: 0, bytes: data.length, text });
      });
      socket.on('error', reject);
      socket.on('end', () => reject(new Error('the sink closed before it was done')));
    });
  },
  async latency({ port, path, samples }) {
    const out = [];
    for (let i = 0; i < samples; i++) out.push((await get(port, path)).firstByteMs);
    return out;
  },
  async concurrent({ port, path, count }) {
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: count }, () => get(port, path)));
    return { ms: performance.now() - started, bytes: results.reduce((sum, r) => sum + r.bytes, 0) };
  },
};

parentPort.on('message', async ({ id, op, args }) => {
  try {
    parentPort.postMessage({ id, result: await ops[op](args) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.stack || error) });
  }
});
`;

interface Exchange {
  readonly ms: number;
  readonly firstByteMs: number;
  readonly bytes: number;
  readonly text: string;
}

interface ClientOps {
  download: { args: { port: number; path: string }; result: Exchange };
  upload: { args: { port: number; body: Uint8Array }; result: Exchange };
  latency: { args: { port: number; path: string; samples: number }; result: number[] };
  concurrent: {
    args: { port: number; path: string; count: number };
    result: { ms: number; bytes: number };
  };
}

/** The worker, as typed async calls. */
class Client {
  private readonly worker = new Worker(CLIENT, { eval: true });
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  constructor() {
    this.worker.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const call = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) call?.reject(new Error(message.error));
      else call?.resolve(message.result);
    });
  }

  call<K extends keyof ClientOps>(
    op: K,
    args: ClientOps[K]['args'],
  ): Promise<ClientOps[K]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, op, args });
    });
  }

  async dispose(): Promise<void> {
    await this.worker.terminate();
  }
}

async function retry<T>(attempt: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

async function waitForFile(client: CriClient, containerId: string, path: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await client.execSync(containerId, ['test', '-f', path], 10)).exitCode === 0) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${path} did not appear in the bench pod`);
}

/** Runs the bench on `context.runtime`; removes its pod whatever happens. */
export async function runPortForwardBench(
  context: PortForwardBenchContext,
): Promise<BenchFigure[]> {
  const { runtime, log } = context;
  const transport = context.transport ?? 'spdy';
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
  const name = `pf-bench-${randomBytes(3).toString('hex')}`;
  const config = podSandboxConfig(name, { runtime });
  const supervisor = new ForwardSupervisor({ runtime: cri });
  const client = new Client();
  let podId: string | undefined;
  try {
    podId = await cri.runPod(config);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('web', ['sh', '-c', POD_SCRIPT]),
      config,
    );
    await cri.startContainer(containerId);
    await waitForFile(cri, containerId, '/www/ready');
    const forward = await supervisor.start({
      target: { kind: 'pod', namespace: config.metadata.namespace, name },
      ports: [
        { localPort: 0, remotePort: 8080 },
        { localPort: 0, remotePort: 9000 },
      ],
      transport,
    });
    const port = forward.ports[0]?.localPort ?? 0;
    const sinkPort = forward.ports[1]?.localPort ?? 0;
    log(`${runtime.id}, ${transport}: forwarding 127.0.0.1:${port} → ${name}:8080`);

    // Warm-up: first connections pay for lazy setup on both sides.
    await client.call('latency', { port, path: '/ok', samples: 5 });

    const downloads: number[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await client.call('download', { port, path: '/big' });
      if (result.bytes !== BIG) throw new Error(`download: ${result.bytes} of ${BIG} bytes`);
      downloads.push(mbps(result.bytes, result.ms));
    }
    log(`download MB/s: ${downloads.map((v) => round(v, 1)).join(', ')}`);

    const uploads: number[] = [];
    const body = randomBytes(UPLOAD);
    for (let i = 0; i < 3; i++) {
      // The sink's nc listens again a moment after each upload.
      const result = await retry(() => client.call('upload', { port: sinkPort, body }));
      uploads.push(mbps(UPLOAD, result.ms));
    }
    log(`upload MB/s: ${uploads.map((v) => round(v, 1)).join(', ')}`);

    const latencies = await client.call('latency', { port, path: '/ok', samples: LATENCY_SAMPLES });

    const concurrent = await client.call('concurrent', { port, path: '/mid', count: CONCURRENCY });
    if (concurrent.bytes !== CONCURRENCY * MID) {
      throw new Error(`concurrent: ${concurrent.bytes} of ${CONCURRENCY * MID} bytes`);
    }

    return [
      {
        name: 'pf_download_mbps',
        value: round(median(downloads), 1),
        unit: 'MB/s',
        target: { op: '>=', value: 500 },
      },
      { name: 'pf_upload_mbps', value: round(median(uploads), 1), unit: 'MB/s' },
      {
        name: 'pf_connect_p50_ms',
        value: round(percentile(latencies, 50), 2),
        unit: 'ms',
        target: { op: '<=', value: 5 },
      },
      { name: 'pf_connect_p99_ms', value: round(percentile(latencies, 99), 2), unit: 'ms' },
      {
        name: 'pf_concurrent100_mbps',
        value: round(mbps(concurrent.bytes, concurrent.ms), 1),
        unit: 'MB/s',
      },
    ];
  } finally {
    await client.dispose();
    supervisor.dispose();
    if (podId !== undefined) {
      await cri.stopPod(podId).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    cri.dispose();
  }
}

export const portForwardBench: BenchModule = { name: 'portforward', run: runPortForwardBench };

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wanted = argument('runtime') ?? 'containerd-2';
  const runtime = labRuntimes().find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted}.`);
  const transport = argument('transport') === 'websocket' ? 'websocket' : 'spdy';
  const figures = await runPortForwardBench({
    runtime,
    transport,
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(figures, null, 2));
}
