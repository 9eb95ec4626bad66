/**
 * The forwards service as the app uses it, against real containerd (1.6 and 2.x from the
 * lab), through the real core (createCore) and the RPC: forwards created through the
 * service carry real HTTP, keep their id (and local port) across stop/start/restart, are
 * saved to forwards.json and start again by themselves when their node connects — also in
 * a new Porthole over the same config directory — and show in the session monitor with
 * their bytes. The pod runs busybox httpd on 8080.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { EventName, EventPayload } from '../../shared/contract';
import type { ForwardEntry, SessionSnapshot } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import {
  TEST_LABEL,
  TEST_NAMESPACE,
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';

const suffix = randomBytes(3).toString('hex');
const DATA = 256 * 1024;
const WEB_SCRIPT = [
  'set -e',
  'mkdir -p /www',
  // Written elsewhere and moved: once /www/data exists it is whole, so its sha256 is.
  `head -c ${DATA} /dev/urandom > /tmp/data`,
  'mv /tmp/data /www/data',
  'touch /www/ready',
  'exec httpd -f -p 8080 -h /www',
].join(' && ');

const delay = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function eventually<T>(probe: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(50);
    }
  }
}

/** GET through a forward; resolves with the status and the body's sha256 and length. */
function fetchThrough(
  port: number,
  path: string,
): Promise<{ status: number; sha256: string; length: number }> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      const hash = createHash('sha256');
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        length += chunk.length;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, sha256: hash.digest('hex'), length }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(20_000, () => request.destroy(new Error('timed out')));
  });
}

/** Resolves true when nothing listens on the port (the connection is refused). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function listen(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function freePort(): Promise<number> {
  const server = await listen();
  const port = (server.address() as AddressInfo).port;
  await new Promise((done) => server.close(done));
  return port;
}

/** The latest payload of an event, and every payload with its time. */
class Recorder<E extends EventName> {
  readonly payloads: { at: number; payload: EventPayload<E> }[] = [];
  get latest(): EventPayload<E> | undefined {
    return this.payloads[this.payloads.length - 1]?.payload;
  }
  readonly push = (payload: EventPayload<E>): void => {
    this.payloads.push({ at: Date.now(), payload });
  };
}

function localPortOf(entry: ForwardEntry | undefined): number {
  const port = entry?.live?.ports[0]?.localPort;
  if (port === undefined) throw new Error(`no bound port: ${JSON.stringify(entry?.live?.state)}`);
  return port;
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const nodeId = `local:${runtime.endpoint}`;
    const podName = `fs-web-${suffix}`;
    const target = { kind: 'pod', namespace: TEST_NAMESPACE, name: podName } as const;
    let dir: string;
    let cri: CriClient;
    let core: Core;
    let client: RpcClient;
    let dataSha = '';
    let forwards: Recorder<'forwards'>;
    let sessions: Recorder<'sessions'>;

    function open(): RpcClient {
      core = createCore({
        configDir: dir,
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      });
      const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
      serve(serverPort, core.services, core.events);
      client = createClient(clientPort);
      forwards = new Recorder();
      sessions = new Recorder();
      client.subscribe('forwards', undefined, forwards.push);
      client.subscribe('sessions', undefined, sessions.push);
      return client;
    }

    function close(): void {
      client.dispose();
      core.dispose();
    }

    const entry = (id: string): ForwardEntry | undefined =>
      forwards.latest?.find((forward) => forward.id === id);
    const sessionOf = (predicate: (session: SessionSnapshot) => boolean) =>
      sessions.latest?.find(predicate);

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'porthole-forwards-'));
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
      const config = podSandboxConfig(podName, { runtime, labels: { [TEST_LABEL]: 'forwards' } });
      const podId = await cri.runPod(config);
      const containerId = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig('web', ['sh', '-c', WEB_SCRIPT]),
        config,
      );
      await cri.startContainer(containerId);
      await eventually(async () => {
        const result = await cri.execSync(containerId, ['sha256sum', '/www/data'], 10);
        if (result.exitCode !== 0) throw new Error('not ready');
        dataSha = new TextDecoder().decode(result.stdout).split(' ')[0] ?? '';
      }, 30_000);
      open();
      await client.services.nodes.connect(nodeId);
    });

    afterAll(async () => {
      if (client !== undefined) close();
      if (cri !== undefined) {
        const pods = await cri.listPods({ labels: { [TEST_LABEL]: 'forwards' } });
        for (const pod of pods) {
          await cri.stopPod(pod.id).catch(() => undefined);
          await cri.removePod(pod.id).catch(() => undefined);
        }
        cri.dispose();
      }
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it('creates a forward that carries HTTP, and shows it as a session with its bytes', async () => {
      const created = await client.services.forwards.create(nodeId, {
        target,
        ports: [{ localPort: 0, remotePort: 8080 }],
      });
      expect(created).toMatchObject({
        nodeId,
        name: `${TEST_NAMESPACE}/${podName} 8080`,
        saved: false,
        autoStart: false,
        live: { state: { name: 'active' }, transport: { kind: 'spdy' } },
      });
      expect(created.id).toMatch(/^forward-/);
      expect(created.live?.ports[0]?.addresses[0]).toBe('127.0.0.1');
      const port = localPortOf(created);
      for (let i = 0; i < 3; i++) {
        expect(await fetchThrough(port, '/data')).toEqual({
          status: 200,
          sha256: dataSha,
          length: DATA,
        });
      }

      const listed = await eventually(() => {
        const found = entry(created.id);
        expect(found?.live?.metrics.bytesIn).toBeGreaterThanOrEqual(3 * DATA);
        return found;
      });
      expect(listed?.live?.metrics.totalConnections).toBe(3);
      const session = await eventually(() => {
        const found = sessionOf(
          (s) => s.kind === 'port-forward' && s.detail === `127.0.0.1:${port} → 8080`,
        );
        expect(found?.bytesIn).toBeGreaterThanOrEqual(3 * DATA);
        expect(found?.throughput.some((rate) => rate > 0)).toBe(true);
        return found;
      });
      expect(session).toMatchObject({
        nodeId,
        detail: `127.0.0.1:${port} → 8080`,
        transport: 'spdy',
        protocol: 'portforward.k8s.io',
        attempts: [{ transport: 'spdy', outcome: 'ok' }],
        target: {
          podName,
          namespace: TEST_NAMESPACE,
          podSandboxId: created.live?.pod?.podSandboxId,
        },
        killable: true,
      });
      expect(session?.bytesOut).toBeGreaterThan(0);

      await client.services.forwards.remove(created.id);
      expect(await refused(port)).toBe(true);
      await eventually(() =>
        expect(sessionOf((s) => s.id === session?.id)).toMatchObject({
          state: 'ended',
          stateReason: 'Removed.',
          killable: false,
        }),
      );
      expect((await client.services.forwards.list()).map((forward) => forward.id)).not.toContain(
        created.id,
      );
    });

    it('sends traffic-only changes at most 4 times a second', async () => {
      const created = await client.services.forwards.create(nodeId, {
        target,
        ports: [{ localPort: 0, remotePort: 8080 }],
      });
      const port = localPortOf(created);
      const from = forwards.payloads.length;
      const started = Date.now();
      // Many small requests over 1.5 s: every one is traffic, none a state change.
      while (Date.now() - started < 1500) await fetchThrough(port, '/data');
      await delay(400);
      const events = forwards.payloads.slice(from);
      const seconds = (events[events.length - 1]?.at ?? started) - started;
      expect(events.length).toBeGreaterThan(2);
      expect(events.length).toBeLessThanOrEqual(Math.ceil((seconds / 1000) * 4) + 1);
      await client.services.forwards.remove(created.id);
    });

    it('keeps the id and a fixed local port across stop, start and restart', async () => {
      const fixed = await freePort();
      const created = await client.services.forwards.create(nodeId, {
        target,
        ports: [{ localPort: fixed, remotePort: 8080 }],
      });
      expect(localPortOf(created)).toBe(fixed);

      const stopped = await client.services.forwards.stop(created.id);
      expect(stopped).toMatchObject({ id: created.id });
      expect(stopped.live).toBeUndefined();
      expect(stopped.lastError).toBeUndefined();
      expect(await refused(fixed)).toBe(true);

      const started = await client.services.forwards.start(created.id);
      expect(started).toMatchObject({ id: created.id, live: { state: { name: 'active' } } });
      expect(localPortOf(started)).toBe(fixed);
      expect((await fetchThrough(fixed, '/data')).sha256).toBe(dataSha);

      const restarted = await client.services.forwards.restart(created.id);
      expect(restarted.id).toBe(created.id);
      expect(localPortOf(restarted)).toBe(fixed);
      expect((await fetchThrough(fixed, '/data')).sha256).toBe(dataSha);
      // Starting a running forward changes nothing.
      expect(localPortOf(await client.services.forwards.start(created.id))).toBe(fixed);
      await client.services.forwards.remove(created.id);
    });

    it('keeps a picked local port across a restart when it is still free', async () => {
      const created = await client.services.forwards.create(nodeId, {
        target,
        ports: [{ localPort: 0, remotePort: 8080 }],
        transport: 'websocket',
      });
      const port = localPortOf(created);
      const restarted = await client.services.forwards.restart(created.id);
      expect(localPortOf(restarted)).toBe(port);
      expect(restarted.live?.transport).toMatchObject({ kind: 'websocket' });
      expect((await fetchThrough(port, '/data')).sha256).toBe(dataSha);
      const session = await eventually(() => {
        const found = sessionOf(
          (s) =>
            s.state === 'active' && s.detail === `127.0.0.1:${port} → 8080` && s.bytesIn >= DATA,
        );
        expect(found).toBeDefined();
        return found;
      });
      expect(session).toMatchObject({ transport: 'websocket', protocol: 'v4.channel.k8s.io' });
      await client.services.forwards.remove(created.id);
    });

    it('refuses a local port in use with a clear error, keeping nothing', async () => {
      const blocker = await listen();
      const busy = (blocker.address() as AddressInfo).port;
      const before = await client.services.forwards.list();
      try {
        await expect(
          client.services.forwards.create(nodeId, {
            target,
            ports: [{ localPort: busy, remotePort: 8080 }],
          }),
        ).rejects.toMatchObject({
          code: 'already-exists',
          message: `Local port ${busy} is already in use on 127.0.0.1.`,
          hint: expect.stringContaining('0 to let Porthole pick a free one') as string,
        });
        expect(await client.services.forwards.list()).toEqual(before);
      } finally {
        await new Promise((done) => blocker.close(done));
      }
    });

    it('saves a forward, stops it when the node goes, and starts it again when it connects', async () => {
      const created = await client.services.forwards.create(
        nodeId,
        { target, ports: [{ localPort: 0, remotePort: 8080 }] },
        { name: 'web data', save: true, autoStart: true },
      );
      const port = localPortOf(created);
      expect(created).toMatchObject({ name: 'web data', saved: true, autoStart: true });
      expect(JSON.parse(await readFile(join(dir, 'forwards.json'), 'utf8'))).toEqual({
        version: 1,
        forwards: [
          {
            id: created.id,
            nodeId,
            // Kept so that the forward still names its node once the node is removed.
            nodeName: `${runtime.kind} (CONTAINER_RUNTIME_ENDPOINT)`,
            name: 'web data',
            spec: { target, ports: [{ localPort: 0, remotePort: 8080 }] },
            autoStart: true,
          },
        ],
      });

      await client.services.nodes.disconnect(nodeId);
      const stopped = await eventually(() => {
        const found = entry(created.id);
        expect(found?.live).toBeUndefined();
        return found;
      });
      expect(stopped?.lastError).toMatchObject({
        code: 'connection-lost',
        message: expect.stringContaining('was disconnected') as string,
      });
      expect(await refused(port)).toBe(true);

      await client.services.nodes.connect(nodeId);
      const again = await eventually(() => {
        const found = entry(created.id);
        expect(found?.live?.state.name).toBe('active');
        return found;
      });
      expect(again?.lastError).toBeUndefined();
      expect(localPortOf(again)).toBe(port);
      expect((await fetchThrough(port, '/data')).sha256).toBe(dataSha);
      await client.services.forwards.remove(created.id);
    });

    it('starts the saved forward in a new Porthole once the node connects', async () => {
      const saved = await client.services.forwards.create(
        nodeId,
        { target, ports: [{ localPort: 0, remotePort: 8080 }] },
        { name: 'web data', save: true, autoStart: true },
      );
      // Only this one is saved: the others go with this Porthole.
      for (const other of await client.services.forwards.list())
        if (other.id !== saved.id && other.saved) await client.services.forwards.remove(other.id);
      close();

      open();
      const listed = await client.services.forwards.list();
      expect(listed).toEqual([
        expect.objectContaining({ id: saved.id, name: 'web data', saved: true }),
      ]);
      expect(listed[0]?.live).toBeUndefined();
      await client.services.nodes.connect(nodeId);
      const running = await eventually(() => {
        const found = entry(saved.id);
        expect(found?.live?.state.name).toBe('active');
        return found;
      });
      expect((await fetchThrough(localPortOf(running), '/data')).sha256).toBe(dataSha);
      await eventually(() =>
        expect(
          sessionOf((s) => s.kind === 'port-forward' && s.state === 'active')?.bytesIn,
        ).toBeGreaterThanOrEqual(DATA),
      );

      await client.services.forwards.remove(saved.id);
      expect(JSON.parse(await readFile(join(dir, 'forwards.json'), 'utf8'))).toEqual({
        version: 1,
        forwards: [],
      });
    });
  },
);
