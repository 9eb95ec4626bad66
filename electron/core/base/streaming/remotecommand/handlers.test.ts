import { PassThrough, Writable, type Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { handlerFor, offeredProtocols, type ProtocolHandler, type TransportKind } from './handlers';
import type {
  ConnectionClosed,
  InputEnd,
  InputStreamType,
  OutputStreamType,
  StreamConnection,
  StreamFlags,
  StreamType,
} from './streams';

/**
 * A connection that creates exactly the streams it is asked for and records everything, so
 * what these tests see is the handler's choice alone: a transport that chose streams,
 * resize or half-close by itself would not be asked here.
 */
class FakeConnection implements StreamConnection {
  /** Streams opened and start(), in order. */
  readonly calls: (StreamType | 'start')[] = [];
  readonly outputs = new Map<OutputStreamType, PassThrough>();
  readonly written = new Map<InputStreamType, string[]>();
  readonly ends = new Map<InputStreamType, InputEnd>();
  /** Input streams whose end reached "the server" (FIN or CLOSE). */
  readonly halfClosed: InputStreamType[] = [];
  readonly closed: Promise<ConnectionClosed>;
  aborted: AppError | undefined;
  disposed = false;
  private resolveClosed!: (closed: ConnectionClosed) => void;

  constructor(
    readonly halfClose: 'frame' | 'signal',
    readonly protocol: string,
    readonly transport: TransportKind = halfClose === 'frame' ? 'spdy' : 'websocket',
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  openOutput(type: OutputStreamType): Promise<Readable> {
    this.calls.push(type);
    const stream = new PassThrough();
    this.outputs.set(type, stream);
    return Promise.resolve(stream);
  }

  openInput(type: InputStreamType, end: InputEnd): Promise<Writable> {
    this.calls.push(type);
    this.ends.set(type, end);
    const written: string[] = [];
    this.written.set(type, written);
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        written.push(chunk.toString());
        callback();
      },
      final: (callback) => {
        if (end.kind === 'refuse') {
          callback(end.error);
          return;
        }
        this.halfClosed.push(type);
        callback();
      },
    });
    stream.on('error', () => undefined);
    return Promise.resolve(stream);
  }

  start(): void {
    this.calls.push('start');
  }

  abort(error: AppError): void {
    this.aborted = error;
    this.close({ local: false, failure: error });
  }

  dispose(): void {
    this.disposed = true;
    this.close({ local: true });
  }

  /** The server's last word: `status` on the error stream (if any), then everything ends. */
  finish(status?: string): void {
    if (status !== undefined) this.outputs.get('error')?.write(status);
    for (const output of this.outputs.values()) output.end();
    this.close({ local: false });
  }

  private close(closed: ConnectionClosed): void {
    for (const output of this.outputs.values()) if (!output.writableEnded) output.end();
    this.resolveClosed(closed);
  }
}

const v = (version: number): string =>
  version === 1 ? 'channel.k8s.io' : `v${version}.channel.k8s.io`;

const flags = (set: Partial<StreamFlags>): StreamFlags => ({
  tty: false,
  stdin: false,
  stdout: false,
  stderr: false,
  ...set,
});

async function open(version: number, set: Partial<StreamFlags>, halfClose: 'frame' | 'signal') {
  const connection = new FakeConnection(halfClose, v(version));
  // Each version by its SPDY name (WebSocket has none for v2/v3): the handler is the same.
  const handler: ProtocolHandler = handlerFor('spdy', v(version));
  const streams = await handler.open(connection, flags(set));
  return { connection, streams };
}

const success = JSON.stringify({ status: 'Success' });

describe('protocol handlers', () => {
  it('picks one handler per negotiated protocol and transport', () => {
    const versions = (transport: TransportKind): number[] =>
      offeredProtocols[transport].map((p) => handlerFor(transport, p).version);
    expect(versions('spdy')).toEqual([5, 4, 3, 2, 1]);
    // The unversioned WebSocket protocols behave as v3 (plain text errors, resize).
    expect(versions('websocket')).toEqual([5, 4, 4, 3, 3]);
    expect(handlerFor('spdy', '').version).toBe(1);
  });

  it('refuses a protocol that was never offered', () => {
    expect(() => handlerFor('spdy', 'v9.channel.k8s.io')).toThrow(AppError);
    expect(() => handlerFor('websocket', '')).toThrow(/does not speak/);
  });

  it('opens exactly the streams the flags imply, in order, and only then lets data flow', async () => {
    const cases: [number, Partial<StreamFlags>, (StreamType | 'start')[]][] = [
      [1, { stdout: true }, ['error', 'stdout', 'start']],
      [
        1,
        { stdin: true, stdout: true, stderr: true },
        ['error', 'stdin', 'stdout', 'stderr', 'start'],
      ],
      // No resize stream before v3, even for a terminal.
      [2, { tty: true, stdin: true, stdout: true }, ['error', 'stdin', 'stdout', 'start']],
      [
        3,
        { tty: true, stdin: true, stdout: true },
        ['error', 'stdin', 'stdout', 'resize', 'start'],
      ],
      // No resize stream without a terminal, whatever the version.
      [
        4,
        { stdin: true, stdout: true, stderr: true },
        ['error', 'stdin', 'stdout', 'stderr', 'start'],
      ],
      [5, { tty: true, stdout: true }, ['error', 'stdout', 'resize', 'start']],
      [5, { stderr: true }, ['error', 'stderr', 'start']],
    ];
    for (const [version, set, expected] of cases) {
      for (const halfClose of ['frame', 'signal'] as const) {
        const { connection, streams } = await open(version, set, halfClose);
        expect({ version, set, calls: connection.calls }).toEqual({
          version,
          set,
          calls: expected,
        });
        expect(streams.stdin !== undefined).toBe(set.stdin === true);
        expect(streams.stdout !== undefined).toBe(set.stdout === true);
        expect(streams.stderr !== undefined).toBe(set.stderr === true);
        streams.dispose();
      }
    }
  });

  it('resizes only a terminal on v3 and later, as one JSON object per size', async () => {
    for (const version of [1, 2, 3, 4, 5]) {
      const { connection, streams } = await open(version, { tty: true, stdout: true }, 'frame');
      streams.sendResize({ cols: 120, rows: 40 });
      expect(streams.canResize).toBe(version >= 3);
      expect(connection.written.get('resize')).toEqual(
        version >= 3 ? ['{"Width":120,"Height":40}'] : undefined,
      );
      streams.dispose();
    }
    const { connection, streams } = await open(4, { stdin: true, stdout: true }, 'frame');
    streams.sendResize({ cols: 80, rows: 24 });
    expect(streams.canResize).toBe(false);
    expect(connection.written.has('resize')).toBe(false);
  });

  it('ends stdin with the transport half-close on every version; without one, only v5 CLOSE', async () => {
    for (const version of [1, 2, 3, 4, 5]) {
      const { connection, streams } = await open(version, { stdin: true, stdout: true }, 'frame');
      expect(connection.ends.get('stdin')).toEqual({ kind: 'half-close' });
      expect(streams.canCloseStdin).toBe(true);
      streams.closeStdin();
      await new Promise((resolve) => setImmediate(resolve));
      expect(connection.halfClosed).toEqual(['stdin']);
    }
    for (const version of [1, 2, 3, 4]) {
      const { connection, streams } = await open(version, { stdin: true, stdout: true }, 'signal');
      expect(connection.ends.get('stdin')?.kind).toBe('refuse');
      expect(streams.canCloseStdin).toBe(false);
      expect(() => streams.closeStdin()).toThrow(/has no half-close/);
      // Ending the stream itself fails the same way, and nothing reaches the server.
      const failed = new Promise((resolve) => streams.stdin?.once('error', resolve));
      streams.stdin?.end();
      expect(await failed).toMatchObject({ code: 'failed-precondition' });
      expect(connection.halfClosed).toEqual([]);
    }
    const { connection, streams } = await open(5, { stdin: true, stdout: true }, 'signal');
    expect(streams.canCloseStdin).toBe(true);
    streams.closeStdin();
    await new Promise((resolve) => setImmediate(resolve));
    expect(connection.halfClosed).toEqual(['stdin']);
  });

  it('reads the error stream as each version writes it; v4 and later always send a status', async () => {
    const outcome = async (version: number, status: string | undefined) => {
      const { connection, streams } = await open(version, { stdout: true }, 'frame');
      connection.finish(status);
      return streams.status.catch((error: unknown) => error);
    };
    expect(await outcome(1, 'ignored')).toMatchObject({ reason: 'Unknown' });
    expect(await outcome(1, undefined)).toMatchObject({ reason: 'Unknown' });
    expect(await outcome(2, undefined)).toEqual({ reason: 'Success', message: '' });
    expect(await outcome(3, 'command terminated\n')).toEqual({
      reason: 'Failure',
      message: 'command terminated',
    });
    for (const version of [4, 5]) {
      expect(await outcome(version, success)).toMatchObject({ reason: 'Success', exitCode: 0 });
      expect(await outcome(version, undefined)).toMatchObject({
        code: 'connection-lost',
        message: expect.stringMatching(/without a command status/) as string,
      });
      expect(await outcome(version, '{oops')).toMatchObject({ code: 'protocol-error' });
    }
  });

  it('reports a failed connection, a local close, and an oversized status', async () => {
    const failed = await open(4, { stdout: true }, 'signal');
    failed.connection.abort(new AppError({ code: 'connection-lost', message: 'dropped' }));
    await expect(failed.streams.status).rejects.toMatchObject({ code: 'connection-lost' });

    const local = await open(4, { stdout: true }, 'frame');
    local.streams.dispose();
    expect(local.connection.disposed).toBe(true);
    await expect(local.streams.status).rejects.toMatchObject({ code: 'cancelled' });

    const flooded = await open(4, { stdout: true }, 'frame');
    flooded.connection.outputs.get('error')?.write(Buffer.alloc(65 * 1024));
    await expect(flooded.streams.status).rejects.toMatchObject({ code: 'protocol-error' });
    expect(flooded.connection.aborted?.code).toBe('protocol-error');
  });
});
