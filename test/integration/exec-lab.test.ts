/**
 * Exec and attach against the real runtimes (containerd 1.6 and 2.x from the lab), over
 * both transports: data integrity with checksums, exit codes, terminals and resize,
 * attach, concurrency, flow control, and the faults a real server produces.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import {
  openRemoteCommand,
  type RemoteCommandOptions,
  type RemoteCommand,
  type TransportKind,
} from '../../electron/core/base/streaming';
import { upgradeToSpdy } from '../../electron/core/base/streaming/spdy';
import { connectWebSocket } from '../../electron/core/base/streaming/websocket';
import {
  busyboxContainerConfig,
  labRuntimes,
  podSandboxConfig,
  type LabPodSandboxConfig,
  type LabRuntime,
  createLabContainer,
} from '../support/lab';
import { asTerminalShowsIt, runtimeFacts } from '../support/runtime-facts';
import { rejection } from '../support/errors';
import type { AppError } from '../../shared/errors';

const MiB = 1024 * 1024;
const transports: readonly TransportKind[] = ['spdy', 'websocket'];
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Everything a Readable delivers, as it arrives (for polling) and at the end. */
function collect(readable: Readable | undefined): {
  text: () => string;
  bytes: () => Buffer;
  done: Promise<Buffer>;
} {
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    if (readable === undefined) {
      resolve(Buffer.alloc(0));
      return;
    }
    readable.on('data', (chunk: Buffer) => chunks.push(chunk));
    readable.once('end', () => resolve(Buffer.concat(chunks)));
    readable.once('error', reject);
  });
  done.catch(() => undefined);
  const bytes = (): Buffer => Buffer.concat(chunks);
  return { text: () => asTerminalShowsIt(bytes().toString('utf8')), bytes, done };
}

/** A streaming sha256 and byte count, without keeping the data. */
async function digest(readable: Readable): Promise<{ bytes: number; sha: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of readable) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { bytes, sha: hash.digest('hex') };
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const labels = { 'porthole.case': `exec-${runtime.id}` };
    let cri: CriClient;
    let pod: LabPodSandboxConfig;
    let podId = '';
    let sleeper = '';
    let shell = '';
    let ticker = '';
    /** sha256 of /tmp/big (100 MiB of random bytes) in the sleeper. */
    let bigSha = '';
    const open: RemoteCommand[] = [];

    const start = async (name: string, command: string[], tty = false): Promise<string> => {
      const id = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig(name, command, { labels, tty, stdin: tty }),
        pod,
      );
      await cri.startContainer(id);
      return id;
    };

    beforeAll(async () => {
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
      pod = podSandboxConfig('exec', { runtime, labels });
      podId = await cri.runPod(pod);
      sleeper = await start('sleeper', ['sleep', '3600']);
      shell = await start('shell', ['sh'], true);
      ticker = await start('ticker', [
        'sh',
        '-c',
        'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.1; done',
      ]);
      const made = await cri.execSync(sleeper, [
        'sh',
        '-c',
        'head -c 104857600 /dev/urandom > /tmp/big && sha256sum /tmp/big',
      ]);
      bigSha = Buffer.from(made.stdout).toString().split(' ')[0] ?? '';
      expect(bigSha).toMatch(/^[0-9a-f]{64}$/);
    });

    afterAll(async () => {
      for (const session of open.splice(0)) session.dispose();
      if (podId !== '') {
        await cri.stopPod(podId).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
      }
      cri?.dispose();
    });

    describe.each(transports)('%s', (transport) => {
      const run = async (
        cmd: readonly string[],
        flags: Partial<RemoteCommandOptions> = {},
      ): Promise<RemoteCommand> => {
        const session = await openRemoteCommand({
          cri,
          kind: 'exec',
          containerId: sleeper,
          cmd,
          tty: false,
          stdin: false,
          stdout: true,
          stderr: false,
          transport,
          ...flags,
        });
        open.push(session);
        return session;
      };

      it('negotiates v4.channel.k8s.io and records the attempt', async () => {
        const session = await run(['true']);
        expect(session.negotiated).toEqual({ transport, protocol: 'v4.channel.k8s.io' });
        expect(session.attempts).toEqual([
          expect.objectContaining({
            transport,
            outcome: 'ok',
            protocolsOffered: expect.arrayContaining([
              'v5.channel.k8s.io',
              'v4.channel.k8s.io',
            ]) as string[],
          }),
        ]);
        const result = await session.result;
        expect(result).toMatchObject({ exitCode: 0, reason: 'Success' });
        expect(result.negotiated.protocol).toBe('v4.channel.k8s.io');
      });

      it('reports exit codes 0, 1, 3 and 137', async () => {
        const codes: (number | undefined)[] = [];
        for (const script of ['exit 0', 'exit 1', 'exit 3', 'kill -9 $$']) {
          const session = await run(['sh', '-c', script]);
          codes.push((await session.result).exitCode);
        }
        expect(codes).toEqual([0, 1, 3, 137]);
      });

      it('keeps stderr apart from stdout without a tty', async () => {
        const session = await run(['sh', '-c', 'echo out; echo err >&2; echo more'], {
          stderr: true,
        });
        const [stdout, stderr] = [collect(session.stdout), collect(session.stderr)];
        expect((await stdout.done).toString()).toBe('out\nmore\n');
        expect((await stderr.done).toString()).toBe('err\n');
        expect((await session.result).exitCode).toBe(0);
      });

      it('streams 100 MiB of stdout intact', async () => {
        const session = await run(['cat', '/tmp/big']);
        const { bytes, sha } = await digest(session.stdout!);
        expect(bytes).toBe(100 * MiB);
        expect(sha).toBe(bigSha);
        expect((await session.result).exitCode).toBe(0);
      });

      if (transport === 'spdy') {
        it('echoes 10 MiB of random stdin through cat, ended by a FIN', async () => {
          const input = randomBytes(10 * MiB);
          const session = await run(['cat'], { stdin: true });
          expect(session.capabilities.closeStdin).toBe(true);
          const output = digest(session.stdout!);
          session.stdin!.end(input);
          expect(await output).toEqual({ bytes: input.length, sha: sha256(input) });
          expect((await session.result).exitCode).toBe(0);
        });
      } else {
        it('echoes stdin through cat but refuses to end it (v4 has no half-close)', async () => {
          const input = randomBytes(2 * MiB);
          const session = await run(['cat'], { stdin: true });
          expect(session.capabilities.closeStdin).toBe(false);
          // Forced, not chosen by auto: the session says what it can't do.
          expect(session.limitation).toMatch(/^WebSocket was chosen by hand: .*cannot end stdin/);
          const output = collect(session.stdout);
          session.stdin!.write(input);
          await expect
            .poll(() => output.bytes().length, { timeout: 20_000 })
            .toBeGreaterThanOrEqual(input.length);
          const error = (() => {
            try {
              session.closeStdin();
            } catch (caught) {
              return caught;
            }
            return undefined;
          })();
          expect(error).toMatchObject({ code: 'failed-precondition' });
          session.dispose();
          expect((await rejection(session.result)).code).toBe('cancelled');
          expect(sha256(output.bytes())).toBe(sha256(input));
        });
      }

      it('shows the initial terminal size and each resize (stty size)', async () => {
        const session = await run(['sh'], {
          tty: true,
          stdin: true,
          initialSize: { cols: 91, rows: 27 },
        });
        expect(session.capabilities.resize).toBe(true);
        const output = collect(session.stdout);
        // Resize and stdin travel separately: ask until the shell sees the new size.
        const expectSize = async (rows: number, cols: number): Promise<void> => {
          await expect
            .poll(
              () => {
                session.stdin!.write('stty size\n');
                return output.text();
              },
              { timeout: 10_000, interval: 100 },
            )
            .toContain(`\r\n${rows} ${cols}\r\n`);
        };
        await expectSize(27, 91);
        session.resize(133, 41);
        await expectSize(41, 133);
        session.resize(0, 0);
        session.resize(70, 20);
        await expectSize(20, 70);
        session.stdin!.write('exit 0\n');
        expect((await session.result).exitCode).toBe(0);
      });

      it('attaches to a running tty container', async () => {
        const session = await openRemoteCommand({
          cri,
          kind: 'attach',
          containerId: shell,
          tty: true,
          stdin: true,
          stdout: true,
          stderr: false,
          transport,
          initialSize: { cols: 80, rows: 24 },
        });
        open.push(session);
        const output = collect(session.stdout);
        // The terminal echoes the command line; only the shell's arithmetic prints 42.
        session.stdin!.write(`echo hi-$((40+2))-${transport}\n`);
        await expect.poll(() => output.text(), { timeout: 10_000 }).toContain(`hi-42-${transport}`);
        session.dispose();
        expect((await rejection(session.result)).code).toBe('cancelled');
      });

      it('attaches to a non-tty container printing lines', async () => {
        const session = await openRemoteCommand({
          cri,
          kind: 'attach',
          containerId: ticker,
          tty: false,
          stdin: false,
          stdout: true,
          stderr: true,
          transport,
        });
        open.push(session);
        const output = collect(session.stdout);
        await expect.poll(() => output.text(), { timeout: 10_000 }).toMatch(/tick \d+\ntick \d+\n/);
        session.dispose();
        expect((await rejection(session.result)).code).toBe('cancelled');
      });

      it('runs 50 sessions at once', async () => {
        // All 50 are open together and each echoes its own line through `cat`. They end by
        // dispose, not by 50 simultaneous exits: containerd 1.6 takes 10–60 s to reap that
        // many exec processes at once (ExecSync alone shows it), which would time the
        // runtime, not this engine. Exit codes are covered above.
        const sessions = await Promise.all(
          Array.from({ length: 50 }, () => run(['cat'], { stdin: true })),
        );
        const outputs = sessions.map((session) => collect(session.stdout));
        sessions.forEach((session, i) => session.stdin!.write(`session-${i}\n`));
        await Promise.all(
          outputs.map((output, i) =>
            expect.poll(() => output.text(), { timeout: 20_000 }).toBe(`session-${i}\n`),
          ),
        );
        expect(new Set(sessions.map((s) => s.negotiated.protocol))).toEqual(
          new Set(['v4.channel.k8s.io']),
        );
        for (const session of sessions) session.dispose();
        const ends = await Promise.allSettled(sessions.map((s) => s.result));
        // Each was open until disposed: none may have ended on its own (say how if one did).
        expect(ends.flatMap((end) => (end.status === 'fulfilled' ? [end.value] : []))).toEqual([]);
        expect(
          ends.map((end) => (end.status === 'rejected' ? (end.reason as AppError).code : '')),
        ).toEqual(sessions.map(() => 'cancelled'));
      });

      it('keeps a slow reader bounded: the container blocks, memory stays flat', async () => {
        const marker = `/tmp/done-${transport}-${Date.now()}`;
        const session = await run(['sh', '-c', `head -c 104857600 /dev/zero; touch ${marker}`]);
        const rssBefore = process.memoryUsage().rss;
        let rssPeak = rssBefore;
        const sampler = setInterval(() => {
          rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        }, 50);
        let consumed = 0;
        const reading = pipeline(
          session.stdout!,
          new Writable({
            highWaterMark: 64 * 1024,
            write(chunk: Buffer, _encoding, callback) {
              consumed += chunk.length;
              setTimeout(callback, (chunk.length / MiB) * 1000); // ~1 MiB/s
            },
          }),
        ).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 3000));
        clearInterval(sampler);
        const finished = await cri.execSync(sleeper, ['test', '-e', marker]);
        session.dispose();
        await reading;
        expect(consumed).toBeLessThan(6 * MiB);
        expect(finished.exitCode).toBe(1); // the writer has not got through: it is blocked
        expect(rssPeak - rssBefore).toBeLessThan(64 * MiB);
      });

      it('reports the exit of a container stopped during the session', async () => {
        const victim = await start(`victim-${transport}`, ['sleep', '3600']);
        const session = await openRemoteCommand({
          cri,
          kind: 'exec',
          containerId: victim,
          cmd: ['sh', '-c', 'echo started; sleep 100'],
          tty: false,
          stdin: false,
          stdout: true,
          stderr: false,
          transport,
        });
        open.push(session);
        const output = collect(session.stdout);
        await expect.poll(() => output.text(), { timeout: 10_000 }).toBe('started\n');
        const started = Date.now();
        await cri.stopContainer(victim, 0);
        const result = await session.result;
        expect(Date.now() - started).toBeLessThan(10_000);
        const ending =
          result.exitCode === 137
            ? 'exit-137'
            : result.reason === 'InternalError' && /signal: killed/.test(result.message)
              ? 'exec-killed'
              : JSON.stringify({
                  exitCode: result.exitCode,
                  reason: result.reason,
                  message: result.message,
                });
        expect(runtimeFacts(runtime).execEndsWithStoppedContainer).toContain(ending);
      });
    });

    it('auto picks SPDY, the transport that can end stdin and resize', async () => {
      for (const flags of [
        { tty: false, stdin: true, stdout: true, stderr: false },
        { tty: true, stdin: true, stdout: true, stderr: false },
      ]) {
        const session = await openRemoteCommand({
          cri,
          kind: 'exec',
          containerId: sleeper,
          cmd: ['cat'],
          transport: 'auto',
          ...flags,
        });
        open.push(session);
        expect(session.negotiated).toEqual({ transport: 'spdy', protocol: 'v4.channel.k8s.io' });
        session.closeStdin();
        if (!flags.tty) expect((await session.result).exitCode).toBe(0);
        session.dispose();
      }
    });

    it('refuses a used stream URL with not-found (404)', async () => {
      const { url } = await cri.exec({
        containerId: sleeper,
        cmd: ['true'],
        tty: false,
        stdin: false,
        stdout: true,
        stderr: false,
      });
      const protocols = ['v4.channel.k8s.io'];
      const ws = await connectWebSocket({ url, protocols });
      ws.terminate();
      const error = await rejection(connectWebSocket({ url, protocols }));
      expect(error).toMatchObject({ code: 'not-found', status: 404 });
      // The same for SPDY: the first request consumed the token, whatever its transport.
      const spdy = await rejection(upgradeToSpdy({ url, protocols }));
      expect(spdy).toMatchObject({ code: 'not-found', status: 404 });
    });

    it('answers 403 to a WebSocket offering only v5', async () => {
      const { url } = await cri.exec({
        containerId: sleeper,
        cmd: ['true'],
        tty: false,
        stdin: false,
        stdout: true,
        stderr: false,
      });
      const error = await rejection(connectWebSocket({ url, protocols: ['v5.channel.k8s.io'] }));
      expect(error).toMatchObject({ code: 'failed-precondition', status: 403 });
    });
  },
);
