/**
 * Port forwarding against real containerd (1.6 and 2.x, from the lab), over SPDY and over
 * the WebSocket fallback: big transfers with checksums both ways, many connections at once,
 * the runtime's own error text for a closed port, EOF in both directions, a pod deleted and
 * re-created under the same name, a dropped session, local port conflicts, and a stop that
 * leaves no handle behind. All traffic goes through the runtime's stream server on loopback.
 *
 * The pod runs busybox: httpd on 8080 (a 100 MiB random file, a 64 KiB one, and a CGI that
 * answers the sha256 of a POSTed body), `nc -l -p 9000 | sha256sum` in a loop (the pod sees
 * EOF only when the client's EOF arrives), and nothing on 8081.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import {
  ForwardSupervisor,
  type ForwardRuntime,
  type ForwardTiming,
} from '../../electron/core/features/forwards';
import { directDialer, type Dialer } from '../../electron/core/base/streaming';
import { upgradeToSpdy, type SpdyUpgrade } from '../../electron/core/base/streaming/spdy';
import { AppError } from '../../shared/errors';
import type { ForwardSnapshot, ForwardTransportChoice } from '../../shared/model';
import {
  TEST_NAMESPACE,
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';

const BIG = 100 * 1024 * 1024;
const SMALL = 64 * 1024;
const UPLOAD = 10 * 1024 * 1024;
const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const transports = ['spdy', 'websocket'] as const;

/** Fast reactions, so that reconnect tests take seconds, not minutes. */
const timing: Partial<ForwardTiming> = {
  startTimeoutMs: 20_000,
  reconnectTimeoutMs: 30_000,
  backoffInitialMs: 100,
  backoffMaxMs: 500,
  healthIntervalMs: 300,
  connectionWaitMs: 10_000,
};

// ---- the pod ------------------------------------------------------------------------------

/** A CGI answering the sha256 of the POSTed body (printf turns each \\n into a newline). */
const CGI_SUM = [
  '#!/bin/sh',
  'echo "Content-Type: text/plain"',
  'echo',
  'head -c "$CONTENT_LENGTH" | sha256sum',
].join('\\n');

const WEB_SCRIPT = [
  'set -e',
  'mkdir -p /www/cgi-bin',
  `head -c ${BIG} /dev/urandom > /www/big`,
  `head -c ${SMALL} /dev/urandom > /www/small`,
  `printf '${CGI_SUM}\\n' > /www/cgi-bin/sum`,
  'chmod +x /www/cgi-bin/sum',
  '(while true; do nc -l -p 9000 | sha256sum > /tmp/sum.part; mv /tmp/sum.part /tmp/sum; done) &',
  'touch /www/ready',
  'exec httpd -f -p 8080 -h /www',
].join('\n');

interface LabPod {
  readonly podId: string;
  readonly containerId: string;
}

const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const delay = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function eventually<T>(probe: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(100);
    }
  }
}

async function startPod(
  client: CriClient,
  runtime: LabRuntime,
  name: string,
  script: string,
): Promise<LabPod> {
  const config = podSandboxConfig(name, { runtime });
  const podId = await client.runPod(config);
  try {
    const containerId = await createLabContainer(
      client,
      podId,
      busyboxContainerConfig('web', ['sh', '-c', script]),
      config,
    );
    await client.startContainer(containerId);
    return { podId, containerId };
  } catch (error) {
    // The caller never learns the sandbox id: clean it up here, or it outlives the suite.
    await removePod(client, { podId, containerId: '' });
    throw error;
  }
}

async function removePod(client: CriClient, pod: LabPod | undefined): Promise<void> {
  if (pod === undefined) return;
  await client.stopPod(pod.podId).catch(() => undefined);
  await client.removePod(pod.podId).catch(() => undefined);
}

async function exec(client: CriClient, pod: LabPod, cmd: string[]): Promise<string> {
  const result = await client.execSync(pod.containerId, cmd, 30);
  if (result.exitCode !== 0) {
    throw new Error(`${cmd.join(' ')}: exit ${result.exitCode} ${decode(result.stderr)}`);
  }
  return decode(result.stdout);
}

async function sha256In(client: CriClient, pod: LabPod, path: string): Promise<string> {
  return (await exec(client, pod, ['sha256sum', path])).split(' ')[0] ?? '';
}

/** A pod whose httpd answers /id with `id`: tells a replacement from the original. */
function idPod(client: CriClient, runtime: LabRuntime, name: string, id: string): Promise<LabPod> {
  return startPod(
    client,
    runtime,
    name,
    `mkdir -p /www && echo ${id} > /www/id && exec httpd -f -p 8080 -h /www`,
  );
}

// ---- a small HTTP client --------------------------------------------------------------------

interface HttpResult {
  readonly status: number;
  readonly length: number;
  readonly sha256: string;
  /** The first 4 KiB of the body. */
  readonly text: string;
  readonly firstByteMs: number;
}

interface HttpOptions {
  readonly path: string;
  readonly method?: 'GET' | 'POST';
  readonly host?: string;
  readonly body?: Buffer;
  /** For answers without Content-Length: done once this holds for the text so far. */
  readonly until?: (text: string) => boolean;
}

/**
 * One HTTP/1.0 exchange on a fresh connection. Done at Content-Length (or `until`), not at
 * EOF: after the pod's side closes, the runtime waits up to 1 s for our EOF before it
 * closes the stream, which would only slow the tests down.
 */
function http(port: number, options: HttpOptions): Promise<HttpResult> {
  return new Promise((resolveResult, reject) => {
    const started = performance.now();
    const socket = connect({ host: options.host ?? '127.0.0.1', port });
    const hash = createHash('sha256');
    let head: string | undefined;
    let pending = Buffer.alloc(0);
    let expected = -1;
    let received = 0;
    let firstByteMs = 0;
    let text = '';
    const finish = (): void => {
      socket.destroy();
      const status = Number(/^HTTP\/1\.\d (\d+)/.exec(head ?? '')?.[1] ?? 0);
      resolveResult({ status, length: received, sha256: hash.digest('hex'), text, firstByteMs });
    };
    socket.on('data', (chunk: Buffer) => {
      if (firstByteMs === 0) firstByteMs = performance.now() - started;
      let body = chunk;
      if (head === undefined) {
        pending = Buffer.concat([pending, chunk]);
        // busybox's CGI headers end in a bare "\n\n".
        const end = /\r?\n\r?\n/.exec(pending.toString('latin1'));
        if (end === null) return;
        head = pending.subarray(0, end.index).toString('latin1');
        expected = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? -1);
        body = pending.subarray(end.index + end[0].length);
      }
      hash.update(body);
      received += body.length;
      if (text.length < 4096) text += body.subarray(0, 4096 - text.length).toString('latin1');
      if ((expected >= 0 && received >= expected) || options.until?.(text) === true) finish();
    });
    socket.on('end', () => {
      if (head !== undefined && expected < 0) finish();
      else reject(new Error(`EOF after ${received} of ${expected} body bytes (head: ${head})`));
    });
    socket.on('error', reject);
    socket.on('connect', () => {
      const method = options.method ?? 'GET';
      const length = options.body !== undefined ? `Content-Length: ${options.body.length}\r\n` : '';
      socket.write(`${method} ${options.path} HTTP/1.0\r\n${length}\r\n`);
      if (options.body !== undefined) socket.write(options.body);
    });
  });
}

/** Resolves when the socket is closed; with the error, if it was reset. */
function closed(socket: Socket): Promise<Error | undefined> {
  return new Promise((done) => {
    if (socket.destroyed) {
      done(undefined);
      return;
    }
    let failure: Error | undefined;
    socket.on('error', (error) => (failure = error));
    socket.once('close', () => done(failure));
  });
}

function listen(port: number, host: string): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(port, host, () => done(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => server.close(() => done()));
}

async function hasIpv6Loopback(): Promise<boolean> {
  try {
    await closeServer(await listen(0, '::1'));
    return true;
  } catch {
    return false;
  }
}

/** TCP sockets and servers of this process, as Node counts its active handles. */
function tcpHandles(): number {
  return process
    .getActiveResourcesInfo()
    .filter((name) => name === 'TCPSocketWrap' || name === 'TCPServerWrap').length;
}

function connection(snapshot: ForwardSnapshot | undefined, remotePort: number, state: string) {
  return snapshot?.connections.find((c) => c.remotePort === remotePort && c.state === state);
}

// ---- runtime-independent --------------------------------------------------------------------

describe('local ports', () => {
  /** These forwards fail before they ever ask the runtime anything. */
  const noRuntime: ForwardRuntime = {
    listPods: () => Promise.reject(new Error('not expected')),
    podStatus: () => Promise.reject(new Error('not expected')),
    portForward: () => Promise.reject(new Error('not expected')),
  };
  const target = { kind: 'pod', namespace: TEST_NAMESPACE, name: 'no-such-pod' } as const;

  it('refuses a local port in use with a clear error, and keeps none of the others', async () => {
    const blocker = await listen(0, '127.0.0.1');
    const busy = (blocker.address() as AddressInfo).port;
    const probe = await listen(0, '127.0.0.1');
    const free = (probe.address() as AddressInfo).port;
    await closeServer(probe);
    const supervisor = new ForwardSupervisor({ runtime: noRuntime, timing });
    try {
      const error = await supervisor
        .start({
          target,
          ports: [
            { localPort: free, remotePort: 80 },
            { localPort: busy, remotePort: 81 },
          ],
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'already-exists',
        message: `Local port ${busy} is already in use on 127.0.0.1.`,
        detail: expect.stringContaining('EADDRINUSE') as string,
        hint: expect.stringContaining('0 to let Porthole pick a free one') as string,
      });
      expect(supervisor.list()).toEqual([]);
      // All or nothing: the first port was bound, and is free again.
      await closeServer(await listen(free, '127.0.0.1'));
    } finally {
      supervisor.dispose();
      await closeServer(blocker);
    }
  });

  it('rejects an invalid spec before listening', async () => {
    const supervisor = new ForwardSupervisor({ runtime: noRuntime, timing });
    try {
      await expect(
        supervisor.start({ target, ports: [{ localPort: 0, remotePort: 70000 }] }),
      ).rejects.toMatchObject({
        code: 'invalid-argument',
        message: '70000 is not a valid pod port.',
      });
    } finally {
      supervisor.dispose();
    }
  });
});

// ---- against the lab ------------------------------------------------------------------------

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    let client: CriClient;
    let web: LabPod | undefined;
    const webName = `pf-web-${suffix}`;
    const webTarget = { kind: 'pod', namespace: TEST_NAMESPACE, name: webName } as const;
    let bigSha = '';
    let smallSha = '';

    beforeAll(async () => {
      client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
      web = await startPod(client, runtime, webName, WEB_SCRIPT);
      const pod = web;
      await eventually(() => exec(client, pod, ['test', '-f', '/www/ready']), 30_000);
      [bigSha, smallSha] = await Promise.all([
        sha256In(client, pod, '/www/big'),
        sha256In(client, pod, '/www/small'),
      ]);
    });

    afterAll(async () => {
      await removePod(client, web);
      client.dispose();
    });

    describe.each(transports)('over %s', (transport: ForwardTransportChoice) => {
      let supervisor: ForwardSupervisor;
      let forward: ForwardSnapshot;
      let httpPort = 0;
      let closedPort = 0;
      let ncPort = 0;

      beforeAll(async () => {
        supervisor = new ForwardSupervisor({ runtime: client, timing });
        forward = await supervisor.start({
          target: webTarget,
          ports: [
            { localPort: 0, remotePort: 8080 },
            { localPort: 0, remotePort: 8081 },
            { localPort: 0, remotePort: 9000 },
          ],
          transport,
        });
        [httpPort, closedPort, ncPort] = forward.ports.map((p) => p.localPort) as [
          number,
          number,
          number,
        ];
      });

      afterAll(() => supervisor.dispose());

      it('is active, on one free port per pod port for 127.0.0.1 and ::1', async () => {
        expect(forward.state).toMatchObject({ name: 'active' });
        expect(forward.transport?.kind).toBe(transport);
        expect(forward.pod).toMatchObject({ podSandboxId: web?.podId, name: webName });
        const ipv6 = await hasIpv6Loopback();
        for (const port of forward.ports) {
          expect(port.localPort).toBeGreaterThan(0);
          expect(port.addresses).toEqual(ipv6 ? ['127.0.0.1', '::1'] : ['127.0.0.1']);
        }
        const answers = await Promise.all(
          (ipv6 ? ['127.0.0.1', '::1'] : ['127.0.0.1']).map((host) =>
            http(httpPort, { path: '/small', host }),
          ),
        );
        for (const answer of answers) expect(answer.sha256).toBe(smallSha);
      });

      it('downloads 100 MiB intact', async () => {
        const answer = await http(httpPort, { path: '/big' });
        expect(answer).toMatchObject({ status: 200, length: BIG, sha256: bigSha });
      });

      it('uploads 10 MiB intact', async () => {
        const body = randomBytes(UPLOAD);
        const answer = await http(httpPort, {
          path: '/cgi-bin/sum',
          method: 'POST',
          body,
          until: (text) => /[0-9a-f]{64}/.test(text),
        });
        expect(answer.status).toBe(200);
        expect(answer.text.slice(0, 64)).toBe(createHash('sha256').update(body).digest('hex'));
      });

      it("passes the client's EOF to the pod, and the pod's EOF back", async () => {
        const pod = web as LabPod;
        await exec(client, pod, ['rm', '-f', '/tmp/sum']);
        const body = randomBytes(1024 * 1024);
        // Send, then EOF: our EOF ends nc's input, so sha256sum finishes; then the pod's side
        // closes and the local socket sees EOF in turn (a clean end, no reset).
        const exchange = (): Promise<void> =>
          new Promise((done, fail) => {
            const socket = connect({ host: '127.0.0.1', port: ncPort });
            let ended = false;
            socket.on('end', () => (ended = true));
            socket.on('error', fail);
            socket.on('close', () => (ended ? done() : fail(new Error('closed without EOF'))));
            socket.resume();
            socket.end(body);
          });
        // The nc loop listens again a moment after the previous connection: until it does,
        // the runtime refuses and the client is reset. Try again then.
        await eventually(exchange);
        const sum = await eventually(() => exec(client, pod, ['cat', '/tmp/sum']));
        expect(sum.split(' ')[0]).toBe(createHash('sha256').update(body).digest('hex'));
      });

      it('serves 100 concurrent connections', async () => {
        const before = supervisor.get(forward.id)?.metrics;
        const answers = await Promise.all(
          Array.from({ length: 100 }, () => http(httpPort, { path: '/small' })),
        );
        for (const answer of answers)
          expect(answer).toMatchObject({ status: 200, sha256: smallSha });
        const after = supervisor.get(forward.id)?.metrics;
        expect(after?.totalConnections).toBeGreaterThanOrEqual(
          (before?.totalConnections ?? 0) + 100,
        );
        expect(after?.failedConnections).toBe(before?.failedConnections);
        expect(after?.bytesIn).toBeGreaterThanOrEqual((before?.bytesIn ?? 0) + 100 * SMALL);
      });

      it("reports the runtime's error text for a closed pod port and stays active", async () => {
        const socket = connect({ host: '127.0.0.1', port: closedPort });
        socket.on('data', () => expect.fail('no data expected from a closed port'));
        socket.write('GET / HTTP/1.0\r\n\r\n');
        const error = await closed(socket);
        // The client learns it through a reset; the user through the connection's error.
        expect(error).toMatchObject({ code: 'ECONNRESET' });
        const failed = await eventually(() => {
          const found = connection(supervisor.get(forward.id), 8081, 'failed');
          if (found === undefined) throw new Error('no failed connection yet');
          return found;
        });
        expect(failed.error).toMatchObject({
          message: 'Nothing accepts connections on port 8081 inside the pod.',
          detail: expect.stringContaining('failed to connect to localhost:8081') as string,
        });
        const snapshot = supervisor.get(forward.id);
        expect(snapshot?.state.name).toBe('active');
        expect(snapshot?.metrics.lastError?.detail).toContain(
          'failed to connect to localhost:8081',
        );
        expect((await http(httpPort, { path: '/small' })).sha256).toBe(smallSha);
      });
    });

    it('falls back to WebSocket when the runtime refuses SPDY, with a fresh URL', async () => {
      const urls: string[] = [];
      const spy: ForwardRuntime = {
        listPods: (filter, options) => client.listPods(filter, options),
        podStatus: (id, options) => client.podStatus(id, options),
        portForward: async (request, options) => {
          const answer = await client.portForward(request, options);
          urls.push(answer.url);
          return answer;
        },
      };
      // A real refusal (403) from the runtime: offer a protocol it does not know.
      const refusing: SpdyUpgrade = (options) =>
        upgradeToSpdy({ ...options, protocols: ['portforward.k8s.io.v0-unknown'] });
      const supervisor = new ForwardSupervisor({ runtime: spy, upgradeSpdy: refusing, timing });
      try {
        const forward = await supervisor.start({
          target: webTarget,
          ports: [{ localPort: 0, remotePort: 8080 }],
        });
        expect(forward.transport).toMatchObject({
          kind: 'websocket',
          protocol: 'v4.channel.k8s.io',
          fallbackReason: expect.stringContaining('HTTP 403') as string,
        });
        const port = forward.ports[0]?.localPort ?? 0;
        expect((await http(port, { path: '/small' })).sha256).toBe(smallSha);
        // One URL for the refused SPDY upgrade, one for the connection: never reused.
        expect(urls).toHaveLength(2);
        expect(new Set(urls).size).toBe(2);
      } finally {
        supervisor.dispose();
      }
    });

    /**
     * A forward whose SPDY sessions the test can drop, holding the next dial until it lets
     * it through; connections wait `connectionWaitMs` for a session.
     */
    async function droppableForward(connectionWaitMs: number) {
      const sessions: Duplex[] = [];
      let gate: Promise<void> | undefined;
      let openGate = (): void => undefined;
      const dialer: Dialer = async (host, port, signal) => {
        if (gate !== undefined) await gate;
        const socket = await directDialer(host, port, signal);
        sessions.push(socket);
        return socket;
      };
      const supervisor = new ForwardSupervisor({
        runtime: client,
        dialer,
        timing: { ...timing, connectionWaitMs },
      });
      const { id, ports } = await supervisor.start({
        target: webTarget,
        ports: [{ localPort: 0, remotePort: 8080 }],
        transport: 'spdy',
      });
      const port = ports[0]?.localPort ?? 0;
      return {
        supervisor,
        id,
        port,
        /** Drops the session; the next one waits for `reconnect`. */
        async drop(): Promise<void> {
          gate = new Promise((done) => (openGate = done));
          for (const socket of sessions.splice(0)) socket.destroy();
          const snapshot = await supervisor.waitFor(id, ['reconnecting'], 5000);
          expect(snapshot.state.reason).toMatch(/session .* lost/);
          expect(snapshot.ports[0]?.localPort).toBe(port);
        },
        reconnect: (): void => openGate(),
        dispose(): void {
          openGate();
          supervisor.dispose();
        },
      };
    }

    it('re-establishes a dropped SPDY session; a new connection waits for it', async () => {
      // Waiting long enough for any machine to reconnect.
      const forward = await droppableForward(30_000);
      try {
        await forward.drop();
        const waiting = http(forward.port, { path: '/small' });
        await eventually(() => {
          if (connection(forward.supervisor.get(forward.id), 8080, 'waiting') === undefined)
            throw new Error('none');
        });
        forward.reconnect();
        expect((await waiting).sha256).toBe(smallSha);
        expect(forward.supervisor.get(forward.id)?.state.name).toBe('active');
      } finally {
        forward.dispose();
      }
    });

    it('refuses a connection that waited longer than connectionWaitMs, and says why', async () => {
      const forward = await droppableForward(1500);
      try {
        await forward.drop();
        const refusedAt = Date.now();
        await expect(http(forward.port, { path: '/small' })).rejects.toMatchObject({
          code: 'ECONNRESET',
        });
        expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(1400);
        expect(connection(forward.supervisor.get(forward.id), 8080, 'failed')?.error).toMatchObject(
          {
            message: 'The connection was refused: the forward has no pod to send it to right now.',
            detail: expect.stringContaining('waited 1500 ms') as string,
          },
        );
        forward.reconnect();
        await forward.supervisor.waitFor(forward.id, ['active'], 10_000);
        expect((await http(forward.port, { path: '/small' })).sha256).toBe(smallSha);
      } finally {
        forward.dispose();
      }
    });

    describe.each(transports)('pod replaced (%s)', (transport: ForwardTransportChoice) => {
      it('follows the pod to its new sandbox on the same local port', async () => {
        const name = `pf-replace-${transport}-${suffix}`;
        let pod: LabPod | undefined = await idPod(client, runtime, name, 'first');
        const supervisor = new ForwardSupervisor({ runtime: client, timing });
        try {
          const { id, ports } = await supervisor.start({
            target: { kind: 'pod', namespace: TEST_NAMESPACE, name },
            ports: [{ localPort: 0, remotePort: 8080 }],
            transport,
          });
          const port = ports[0]?.localPort ?? 0;
          expect((await eventually(() => http(port, { path: '/id' }))).text).toBe('first\n');
          // State changes from here on (traffic-only events repeat the current state).
          const states: string[] = ['active'];
          supervisor.onDidChange((s) => {
            if (states.at(-1) !== s.state.name) states.push(s.state.name);
          });

          await removePod(client, pod);
          const lost = pod.podId;
          pod = undefined;
          const reconnecting = await supervisor.waitFor(id, ['reconnecting'], 10_000);
          // Why it reconnects, then (as it retries) why it can't yet.
          expect(reconnecting.state.reason).toMatch(/gone or not ready|No ready pod named/);
          expect(reconnecting.ports[0]?.localPort).toBe(port);

          pod = await idPod(client, runtime, name, 'second');
          const active = await supervisor.waitFor(id, ['active'], 20_000);
          expect(active.pod?.podSandboxId).toBe(pod.podId);
          expect(active.pod?.podSandboxId).not.toBe(lost);
          expect(active.ports[0]?.localPort).toBe(port);
          // The sandbox is ready before its httpd is: retry until it answers.
          expect((await eventually(() => http(port, { path: '/id' }))).text).toBe('second\n');
          expect(states).toEqual(['active', 'reconnecting', 'active']);
        } finally {
          supervisor.dispose();
          await removePod(client, pod);
        }
      });
    });

    it('stop closes every listener and connection, waiting and mid-transfer ones too', async () => {
      // Earlier tests' sockets may still be closing: start from a settled count.
      let before = tcpHandles();
      await eventually(async () => {
        await delay(100);
        const now = tcpHandles();
        const settled = now === before;
        before = now;
        if (!settled) throw new Error('handles still changing');
      });
      const supervisor = new ForwardSupervisor({ runtime: client, timing });
      const { ports } = await supervisor.start({
        target: webTarget,
        ports: [
          { localPort: 0, remotePort: 8080 },
          { localPort: 0, remotePort: 8081 },
        ],
      });
      const port = ports[0]?.localPort ?? 0;
      // Mid-transfer: a download whose reader has stopped reading.
      const stalled = connect({ host: '127.0.0.1', port });
      stalled.write('GET /big HTTP/1.0\r\n\r\n');
      const firstBytes = new Promise((done) => stalled.once('data', done));
      await firstBytes;
      stalled.pause();
      // Idle: connected, never sends anything.
      const idle = connect({ host: '127.0.0.1', port });
      await new Promise((done) => idle.once('connect', done));
      await eventually(() => {
        if ((supervisor.list()[0]?.metrics.openConnections ?? 0) < 2) throw new Error('not yet');
      });
      expect(tcpHandles()).toBeGreaterThan(before);

      const stalledClosed = closed(stalled.resume());
      const idleClosed = closed(idle);
      supervisor.dispose();
      await Promise.all([stalledClosed, idleClosed]);
      await eventually(() => {
        if (tcpHandles() > before) throw new Error(`${tcpHandles()} TCP handles, ${before} before`);
      }, 5000);
    });
  },
);

// ---- a process that must exit by itself after stop ------------------------------------------

describe('stop leaves no handle behind', () => {
  const [runtime] = labRuntimes();
  let scratch: string;
  let client: CriClient;
  let pod: LabPod | undefined;
  const name = `pf-exit-${suffix}`;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'porthole-pf-'));
    client = CriClient.create({ endpoint: runtime?.endpoint ?? '', timeoutMs: 30_000 });
    if (runtime !== undefined) pod = await idPod(client, runtime, name, 'exit');
  });

  afterAll(async () => {
    await removePod(client, pod);
    client.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a process that used both transports exits on its own once they are stopped', async () => {
    const script = join(scratch, 'forward-exits.mts');
    const from = (path: string): string => JSON.stringify(join(root, path));
    writeFileSync(
      script,
      `
import { connect } from 'node:net';
import { CriClient } from ${from('electron/core/base/cri/index.ts')};
import { ForwardSupervisor } from ${from('electron/core/features/forwards/index.ts')};

const [endpoint, namespace, name] = process.argv.slice(2);
const client = CriClient.create({ endpoint, timeoutMs: 10_000 });
const supervisor = new ForwardSupervisor({ runtime: client });
const sockets = [];
const open = (port) => new Promise((done) => {
  const socket = connect({ host: '127.0.0.1', port }, () => done(socket));
  socket.on('error', () => undefined);
  sockets.push(socket);
});
for (const transport of ['spdy', 'websocket']) {
  const { id, ports } = await supervisor.start({
    target: { kind: 'pod', namespace, name },
    ports: [{ localPort: 0, remotePort: 8080 }, { localPort: 0, remotePort: 8081 }],
    transport,
  });
  // A finished request, one left open, one to a closed pod port.
  const done = await open(ports[0].localPort);
  done.end('GET /id HTTP/1.0\\r\\n\\r\\n');
  await new Promise((resolve) => done.on('close', resolve).resume());
  (await open(ports[0].localPort)).write('GET /id HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
  (await open(ports[1].localPort)).write('hello');
  // Stopped only once the forward has the open one and the refused one.
  for (;;) {
    const metrics = supervisor.get(id)?.metrics;
    if (metrics !== undefined && metrics.openConnections >= 1 && metrics.failedConnections >= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
supervisor.dispose();
client.dispose();
// Our own client sockets are the test's, not the forward's: close them too.
for (const socket of sockets) socket.destroy();
process.stdout.write('stopped\\n');
`,
    );
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', script, runtime?.endpoint ?? '', TEST_NAMESPACE, name],
      {
        cwd: root,
        // tsx compiling the fixture alone took 15–17 s at a load average of 26: the bound
        // is for a process that never exits, not for a slow start.
        timeout: 50_000,
        env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.tests.json') },
      },
    );
    expect(stdout).toBe('stopped\n');
  });
});
