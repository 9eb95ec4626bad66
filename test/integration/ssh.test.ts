/**
 * A remote node over SSH, for real: an OpenSSH server on 127.0.0.1 in front of the lab's
 * containerd (the "node" is this machine, reached only through sshd). CRI calls go through
 * the bridge socket, stream URLs through the SSH dialer (exec on both transports, a 10 MiB
 * port-forward), container logs are followed over SFTP across a real rotation, and a
 * killed or frozen sshd gives clear errors, then a working connection once it is back.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import { ForwardSupervisor } from '../../electron/core/features/forwards';
import { SshNodeConnection, type SshConnectOptions } from '../../electron/core/base/ssh';
import {
  openRemoteCommand,
  type Dialer,
  type TransportKind,
} from '../../electron/core/base/streaming';
import { AppError } from '../../shared/errors';
import type { SshConnectionState } from '../../shared/model';
import {
  TEST_NAMESPACE,
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  createLabContainer,
} from '../support/lab';
import { Sshd, generateKey, type KeyPair } from '../support/sshd';
import { rejection } from '../support/errors';

const runtime = labRuntimes()[0]!;
const suffix = randomBytes(3).toString('hex');
const transports: readonly TransportKind[] = ['spdy', 'websocket'];
const MiB = 1024 * 1024;
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const delay = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

let dir: string;
let key: KeyPair;
let sshd: Sshd;
let configPath: string;
let knownHostsPath: string;

function options(overrides: Partial<SshConnectOptions> = {}): SshConnectOptions {
  return {
    target: { kind: 'ssh', host: 'node-1', runtimeEndpoint: runtime.endpoint },
    configPaths: [configPath],
    knownHostsPath,
    globalKnownHostsPaths: [],
    agentSocket: null,
    environment: { homeDir: dir },
    confirmHostKey: () => Promise.reject(new Error('no prompt expected: the key is known')),
    reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
    ...overrides,
  };
}

/** Counts the dials, so a test can show stream URLs really went through SSH. */
function counting(dialer: Dialer): { dialer: Dialer; dials: string[] } {
  const dials: string[] = [];
  return {
    dials,
    dialer: (host, port, signal) => {
      dials.push(`${host}:${port}`);
      return dialer(host, port, signal);
    },
  };
}

function waitForState(
  connection: SshNodeConnection,
  state: SshConnectionState['state'],
  timeoutMs = 15_000,
): Promise<SshConnectionState> {
  if (connection.state.state === state) return Promise.resolve(connection.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`still ${JSON.stringify(connection.state)} after ${timeoutMs} ms`));
    }, timeoutMs);
    const subscription = connection.onDidChangeState((next) => {
      if (next.state !== state) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(next);
    });
  });
}

function collect(readable: Readable | undefined): { text: () => string; done: Promise<Buffer> } {
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    if (readable === undefined) return resolve(Buffer.alloc(0));
    readable.on('data', (chunk: Buffer) => chunks.push(chunk));
    readable.once('end', () => resolve(Buffer.concat(chunks)));
    readable.once('error', reject);
  });
  done.catch(() => undefined);
  return { text: () => Buffer.concat(chunks).toString('utf8'), done };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-ssh-test-'));
  key = await generateKey(join(dir, 'id_ed25519'));
  sshd = await Sshd.create({ authorizedKeys: [key.publicKey] });
  configPath = join(dir, 'ssh_config');
  writeFileSync(
    configPath,
    [
      'Host node-1',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      '  User root',
      `  IdentityFile ${key.privateKeyPath}`,
      '  IdentitiesOnly yes',
      '',
    ].join('\n'),
  );
  knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
});

afterAll(async () => {
  await sshd?.dispose();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a node over SSH', () => {
  let connection: SshNodeConnection;
  let cri: CriClient;
  const pods: string[] = [];

  beforeAll(async () => {
    connection = await SshNodeConnection.connect(options());
    cri = CriClient.create({ endpoint: connection.endpoint, timeoutMs: 10_000 });
  });

  afterAll(async () => {
    for (const podId of pods) {
      await cri.stopPod(podId).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    cri?.dispose();
    connection?.dispose();
  });

  /** A running pod with a busybox container running `script`. */
  async function startPod(
    name: string,
    script: string,
  ): Promise<{ podId: string; containerId: string }> {
    const config = podSandboxConfig(`${name}-${suffix}`, { runtime });
    const podId = await cri.runPod(config);
    pods.push(podId);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('main', ['sh', '-c', script]),
      config,
    );
    await cri.startContainer(containerId);
    return { podId, containerId };
  }

  it('lists pods through a bridge socket in a private 0700 directory', async () => {
    expect(connection.state.state).toBe('connected');
    expect(connection.runtimeSocketPath).toBe(runtime.socketPath);
    expect(connection.endpoint).toBe(`unix://${join(connection.bridgeDir, 'cri.sock')}`);
    expect(connection.bridgeDir.startsWith(tmpdir())).toBe(true);
    expect(statSync(connection.bridgeDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(connection.bridgeDir, 'cri.sock')).isSocket()).toBe(true);

    const { podId } = await startPod('ssh-list', 'sleep 3600');
    const listed = await cri.listPods({ labels: { 'porthole.test': 'true' } });
    expect(listed.map((pod) => pod.id)).toContain(podId);
    expect((await cri.version()).runtimeName).toBe(runtime.kind);
  });

  describe('streams through the SSH dialer', () => {
    let containerId: string;
    beforeAll(async () => {
      ({ containerId } = await startPod('ssh-exec', 'sleep 3600'));
    });

    it.each(transports)('runs exec over %s', async (transport) => {
      const { dialer, dials } = counting(connection.dialer);
      const session = await openRemoteCommand({
        cri,
        kind: 'exec',
        containerId,
        cmd: ['sh', '-c', `echo hello-${transport}; head -c ${4 * MiB} /dev/zero`],
        tty: false,
        stdin: false,
        stdout: true,
        stderr: false,
        transport,
        dialer,
      });
      const output = collect(session.stdout);
      const result = await session.result;
      const bytes = await output.done;
      session.dispose();
      expect(result).toMatchObject({ exitCode: 0, reason: 'Success' });
      expect(bytes.subarray(0, 20).toString()).toBe(`hello-${transport}\n`.padEnd(20, '\0'));
      expect(bytes.length).toBe(`hello-${transport}\n`.length + 4 * MiB);
      // The stream URL points at the node's loopback; only the tunnel reaches it.
      expect(dials).toHaveLength(1);
      expect(dials[0]).toMatch(/^127\.0\.0\.1:\d+$/);
    });

    it('carries 2 MiB of stdin over SPDY intact', async () => {
      const { dialer, dials } = counting(connection.dialer);
      const input = randomBytes(2 * MiB);
      const session = await openRemoteCommand({
        cri,
        kind: 'exec',
        containerId,
        cmd: ['sha256sum'],
        tty: false,
        stdin: true,
        stdout: true,
        stderr: false,
        transport: 'spdy',
        dialer,
      });
      const output = collect(session.stdout);
      session.stdin!.end(input);
      await expect(session.result).resolves.toMatchObject({ exitCode: 0 });
      expect((await output.done).toString().split(' ')[0]).toBe(sha256(input));
      expect(dials).toHaveLength(1);
      session.dispose();
    });

    it.each(['spdy', 'websocket'] as const)(
      'forwards a pod port over %s: 10 MiB arrive intact',
      async (transport) => {
        const name = `ssh-pf-${transport}-${suffix}`;
        const config = podSandboxConfig(name, { runtime });
        const podId = await cri.runPod(config);
        pods.push(podId);
        const web = await createLabContainer(
          cri,
          podId,
          busyboxContainerConfig('web', [
            'sh',
            '-c',
            `mkdir -p /www && head -c ${10 * MiB} /dev/urandom > /tmp/big && mv /tmp/big /www/big && exec httpd -f -p 8080 -h /www`,
          ]),
          config,
        );
        await cri.startContainer(web);
        // Written elsewhere and moved: /www/big is complete once it exists.
        await expect
          .poll(async () => (await cri.execSync(web, ['test', '-e', '/www/big'], 10)).exitCode, {
            timeout: 10_000,
          })
          .toBe(0);
        const expected = (await cri.execSync(web, ['sha256sum', '/www/big'], 30)).stdout;
        const { dialer, dials } = counting(connection.dialer);
        const supervisor = new ForwardSupervisor({ runtime: cri, dialer });
        try {
          const forward = await supervisor.start({
            target: { kind: 'pod', namespace: TEST_NAMESPACE, name },
            ports: [{ localPort: 0, remotePort: 8080 }],
            transport,
          });
          const port = forward.ports[0]!.localPort;
          const body = await httpGet(port, '/big');
          expect(body.length).toBe(10 * MiB);
          expect(sha256(body)).toBe(new TextDecoder().decode(expected).split(' ')[0]);
          expect(dials.length).toBeGreaterThanOrEqual(1);
          expect(dials.every((dial) => dial.startsWith('127.0.0.1:'))).toBe(true);
        } finally {
          supervisor.dispose();
        }
      },
    );
  });

  describe('log files over SFTP', () => {
    it('follows a container log across a rotation (rename + ReopenContainerLog)', async () => {
      const { containerId } = await startPod('ssh-logs', 'echo started; exec sleep 3600');
      const logPath = (await cri.containerStatus(containerId)).logPath;
      expect(logPath).not.toBe('');
      const say = async (text: string): Promise<void> => {
        // Written to the container's own stdout, so the runtime logs it like any output.
        const result = await cri.execSync(
          containerId,
          ['sh', '-c', `echo ${text} > /proc/1/fd/1`],
          10,
        );
        expect(result.exitCode).toBe(0);
      };
      let text = '';
      const rotations: string[] = [];
      const errors: AppError[] = [];
      const follow = connection.followRemoteFile(
        logPath,
        {
          pollIntervalMs: 50,
          onRotate: (how) => rotations.push(how),
          onError: (error) => errors.push(error),
        },
        (chunk) => {
          text += chunk.toString('utf8');
        },
      );
      try {
        await expect.poll(() => text, { timeout: 10_000 }).toMatch(/ stdout F started\n/);
        await say(`line-one-${suffix}`);
        await expect
          .poll(() => text, { timeout: 10_000 })
          .toContain(`stdout F line-one-${suffix}\n`);

        // What the kubelet does: move the file away, then ask the runtime to reopen it.
        renameSync(logPath, `${logPath}.1`);
        await cri.reopenContainerLog(containerId);
        await say(`line-two-${suffix}`);
        await expect
          .poll(() => text, { timeout: 10_000 })
          .toContain(`stdout F line-two-${suffix}\n`);
        expect(rotations).toEqual(['rotated']);
        expect(errors).toEqual([]);
        // Nothing was read twice.
        expect(text.split(`line-one-${suffix}`)).toHaveLength(2);

        // Range reads and stat of the current file.
        const local = readFileSync(logPath);
        expect(await connection.readRemoteFile(logPath, 0, 1000)).toEqual(local.subarray(0, 1000));
        const file = await connection.openRemoteFile(logPath);
        try {
          expect((await file.stat()).size).toBe(local.length);
          expect(await file.read(5, 10)).toEqual(local.subarray(5, 15));
        } finally {
          file.dispose();
        }
      } finally {
        follow.dispose();
      }
    });

    it('starts at an offset or at the end, notices truncation, and reports a missing file', async () => {
      const path = join(dir, 'plain.log');
      writeFileSync(path, 'old-1\nold-2\n');
      let fromEnd = '';
      let fromOffset = '';
      const rotations: string[] = [];
      const a = connection.followRemoteFile(
        path,
        { fromOffset: 'end', pollIntervalMs: 50 },
        (c) => {
          fromEnd += c.toString();
        },
      );
      const b = connection.followRemoteFile(
        path,
        { fromOffset: 6, pollIntervalMs: 50, onRotate: (how) => rotations.push(how) },
        (c) => {
          fromOffset += c.toString();
        },
      );
      try {
        await expect.poll(() => fromOffset).toBe('old-2\n');
        await delay(150);
        appendFileSync(path, 'new-1\n');
        await expect.poll(() => fromEnd).toBe('new-1\n');
        await expect.poll(() => fromOffset).toBe('old-2\nnew-1\n');
        truncateSync(path, 0);
        await delay(150);
        appendFileSync(path, 'after\n');
        await expect.poll(() => fromOffset, { timeout: 5000 }).toBe('old-2\nnew-1\nafter\n');
        expect(rotations).toEqual(['truncated']);
      } finally {
        a.dispose();
        b.dispose();
      }

      const missing = await new Promise<AppError>((resolve) => {
        const follow = connection.followRemoteFile(
          join(dir, 'nope.log'),
          { onError: resolve },
          () => {},
        );
        setTimeout(() => follow.dispose(), 10_000);
      });
      expect(missing).toMatchObject({
        code: 'not-found',
        message: `There is no file ${join(dir, 'nope.log')} on node-1.`,
      });
    });

    it('makes directories on the node like mkdir -p, and says why it cannot', async () => {
      const deep = join(dir, 'logs', 'ns_pod_uid', 'web');
      await connection.makeRemoteDirectory(deep);
      expect(statSync(deep).isDirectory()).toBe(true);
      // Again, and a parent of it: nothing to do, no error.
      await connection.makeRemoteDirectory(deep);
      await connection.makeRemoteDirectory(join(dir, 'logs'));
      writeFileSync(join(dir, 'a-file'), '');
      await expect(
        connection.makeRemoteDirectory(join(dir, 'a-file', 'web')),
      ).rejects.toMatchObject({
        code: 'failed-precondition',
        message: `${join(dir, 'a-file')} on node-1 exists and is not a directory.`,
      });
    });
  });

  it('says clearly when a dialed port is closed on the node', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        server.close(() => resolve(port));
      });
    });
    const error = await rejection(connection.dialer('127.0.0.1', closedPort));
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(
      `The SSH server on node-1 could not connect to 127.0.0.1:${closedPort}.`,
    );
  });
});

describe('when the connection drops', () => {
  let echo: Server;
  let echoPort: number;
  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoPort = (echo.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('ends live channels with connection-lost, fails CRI calls fast, then works again', async () => {
    const connection = await SshNodeConnection.connect(options());
    const cri = CriClient.create({ endpoint: connection.endpoint, timeoutMs: 10_000 });
    const bridgeDir = connection.bridgeDir;
    try {
      expect((await cri.listPods()).length).toBeGreaterThanOrEqual(0);
      const states: SshConnectionState[] = [];
      connection.onDidChangeState((state) => states.push(state));

      // A live tunnel (as an exec or port-forward would hold) and a log follow.
      const stream = await connection.dialer('127.0.0.1', echoPort);
      const streamError = new Promise<Error>((resolve) => stream.once('error', resolve));
      stream.write('ping');
      await new Promise((resolve) => stream.once('data', resolve));
      const logPath = join(dir, 'drop.log');
      writeFileSync(logPath, 'x\n');
      const followError = new Promise<AppError>((resolve) =>
        connection.followRemoteFile(logPath, { pollIntervalMs: 50, onError: resolve }, () => {}),
      );

      sshd.kill();

      const lost = await streamError;
      expect(lost).toBeInstanceOf(AppError);
      expect(lost).toMatchObject({ code: 'connection-lost' });
      expect(lost.message).toMatch(/^SSH connection to node-1 dropped: .+/);
      expect(await followError).toMatchObject({ code: 'connection-lost' });
      const reconnecting = await waitForState(connection, 'reconnecting');
      expect(reconnecting).toMatchObject({ state: 'reconnecting', attempt: 1 });

      // Meanwhile: CRI calls fail at once (not at their deadline) and say why. A call made
      // before grpc-js noticed its connection is gone reports just that ("Connection
      // dropped"); every later one gets the reconnecting message from the bridge.
      const failures: AppError[] = [];
      await expect
        .poll(
          async () => {
            const started = Date.now();
            const failed = await rejection(cri.listPods());
            expect(Date.now() - started).toBeLessThan(1000);
            failures.push(failed);
            return `${failed.message} ${failed.detail}`;
          },
          { timeout: 3000 },
        )
        .toMatch(/The SSH connection to node-1 is reconnecting \(attempt \d+\) after: /);
      expect(failures.every((failure) => failure.code === 'unavailable')).toBe(true);
      const dialFailure = await rejection(connection.dialer('127.0.0.1', echoPort));
      expect(dialFailure).toMatchObject({ code: 'unavailable' });
      expect(dialFailure.message).toMatch(/is reconnecting \(attempt \d+\) after: /);

      // The node comes back on the same address with the same host key.
      await sshd.start();
      await waitForState(connection, 'connected');
      // The same CriClient works again: the bridge socket never went away.
      await expect
        .poll(async () => (await cri.listPods()).length >= 0, { timeout: 5000 })
        .toBe(true);
      const again = await connection.dialer('127.0.0.1', echoPort);
      again.write('pong');
      expect(String(await new Promise((resolve) => again.once('data', resolve)))).toBe('pong');
      again.destroy();
      expect(states.map((s) => s.state)).toContain('reconnecting');
      expect(states.at(-1)?.state).toBe('connected');
    } finally {
      cri.dispose();
      connection.dispose();
    }
    expect(existsSync(bridgeDir)).toBe(false);
    expect(connection.state).toMatchObject({ state: 'disconnected' });
  });

  it('stops reconnecting to a server whose host key changed meanwhile, until told to retry', async () => {
    await sshd.start();
    const connection = await SshNodeConnection.connect(options());
    let impostor: Sshd | undefined;
    try {
      sshd.kill();
      // Someone else answers on the node's address now, with another host key.
      impostor = await Sshd.create({ authorizedKeys: [key.publicKey], port: sshd.port });
      const state = await waitForState(connection, 'disconnected');
      expect(state).toMatchObject({ state: 'disconnected', errorCode: 'permission-denied' });
      expect(state.state === 'disconnected' && state.reason).toMatch(
        /^The host key of \[127\.0\.0\.1\]:\d+ has changed \(known: ssh-ed25519 SHA256:.+; offered: ssh-ed25519 SHA256:.+\)/,
      );
      expect(impostor.log).not.toMatch(/Accepted publickey/);

      // The real node is back: an explicit retry connects again.
      await impostor.dispose();
      impostor = undefined;
      await sshd.start();
      await connection.reconnect();
      expect(connection.state.state).toBe('connected');
    } finally {
      await impostor?.dispose();
      connection.dispose();
    }
  });

  it('notices a silent node through keepalives', async () => {
    await sshd.start(); // Running already, unless an earlier test failed half-way.
    const connection = await SshNodeConnection.connect(
      options({
        target: {
          kind: 'ssh',
          host: 'node-1',
          runtimeEndpoint: runtime.endpoint,
          keepaliveIntervalSeconds: 0.5,
          keepaliveCountMax: 2,
        },
      }),
    );
    try {
      const started = Date.now();
      sshd.freeze();
      const state = await waitForState(connection, 'reconnecting', 10_000);
      expect(state).toMatchObject({ reason: 'no answer to keepalives (network or node down)' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      sshd.thaw();
      connection.dispose();
    }
  });
});

/** GET over HTTP/1.0 on a fresh connection; resolves with the body once Content-Length arrived. */
function httpGet(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let received = 0;
    let headerEnd = -1;
    let expected = -1;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (headerEnd < 0) {
        const all = Buffer.concat(chunks);
        headerEnd = all.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        expected = Number(
          /content-length: *(\d+)/i.exec(all.subarray(0, headerEnd).toString())?.[1],
        );
      }
      if (received - headerEnd - 4 >= expected) {
        socket.destroy();
        resolve(Buffer.concat(chunks).subarray(headerEnd + 4));
      }
    });
    socket.once('error', reject);
    socket.once('end', () => reject(new Error(`EOF after ${received} bytes`)));
    socket.write(`GET ${path} HTTP/1.0\r\n\r\n`);
  });
}
