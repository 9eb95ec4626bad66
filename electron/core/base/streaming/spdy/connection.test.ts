import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../../../../shared/errors';
import { encodeControlFrame, encodeDataFrame, FLAG_FIN, GoAwayStatus, RstStatus } from './frames';
import { upgradeToSpdy, type SpdyConnection, type SpdyStream } from './index';
import {
  FakeSpdyServer,
  type FakeServerStream,
  type FakeSpdyServerConnection,
} from './testing/fake-spdy-server';

const MiB = 1024 * 1024;
const PROTOCOLS = ['v4.channel.k8s.io'];

let server: FakeSpdyServer;
let sessions: SpdyConnection[];

beforeEach(() => {
  sessions = [];
});

afterEach(async () => {
  for (const session of sessions) session.dispose();
  await server.close();
});

async function start(
  options: Parameters<typeof FakeSpdyServer.start>[0] = {},
): Promise<{ session: SpdyConnection; connection: FakeSpdyServerConnection }> {
  server = await FakeSpdyServer.start(options);
  const session = await upgradeToSpdy({ url: server.url(), protocols: PROTOCOLS });
  sessions.push(session);
  const connection = server.connections[0];
  if (connection === undefined) throw new Error('no server connection');
  return { session, connection };
}

/** createStream, with an 'error' listener so a stream a test does not read can't crash it. */
async function open(
  session: SpdyConnection,
  headers: Record<string, string>,
  options?: Parameters<SpdyConnection['createStream']>[1],
): Promise<SpdyStream> {
  const stream = await session.createStream(headers, options);
  stream.on('error', () => undefined);
  return stream;
}

/** The server side of the next stream the client opens. */
function nextServerStream(connection: FakeSpdyServerConnection): Promise<FakeServerStream> {
  return new Promise((resolve) => {
    connection.onStream = (stream) => {
      connection.onStream = undefined;
      resolve(stream);
    };
  });
}

/** Reads a stream to its end or error: what arrived, and how it ended. */
async function drain(stream: SpdyStream): Promise<{ data: Buffer; error: AppError | undefined }> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const error = await new Promise<AppError | undefined>((resolve) => {
    stream.once('end', () => resolve(undefined));
    stream.once('error', (e) => resolve(e as AppError));
  });
  return { data: Buffer.concat(chunks), error };
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('SpdyConnection against an in-process spdystream-like server', () => {
  it('opens streams with header-less SYN_REPLYs and moves data both ways', async () => {
    const { session, connection } = await start();
    expect(session.protocol).toBe('v4.channel.k8s.io');
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { StreamType: 'stdin' });
    expect(stream.id).toBe(1);
    expect(stream.headers).toEqual({ streamtype: 'stdin' });
    expect(stream.replyHeaders).toEqual({});
    const remote = await serverSide;
    expect(remote.headers).toEqual({ streamtype: 'stdin' });

    stream.end('hello');
    const received: Buffer[] = [];
    for await (const chunk of remote.incoming) received.push(chunk as Buffer);
    expect(Buffer.concat(received).toString()).toBe('hello');

    const closed = once(stream, 'close');
    const reading = drain(stream);
    await remote.write('world', true);
    const { data, error } = await reading;
    expect(error).toBeUndefined();
    expect(data.toString()).toBe('world');
    // Both sides finished: the stream is done and closes by itself.
    await closed;
  });

  it('gives streams ids 1,3,5,7,9 in wire order when created without awaiting', async () => {
    const { session, connection } = await start();
    const names = ['error', 'stdin', 'stdout', 'stderr', 'resize'];
    const seen: FakeServerStream[] = [];
    connection.onStream = (stream) => seen.push(stream);
    const streams = await Promise.all(names.map((name) => open(session, { streamtype: name })));
    expect(streams.map((s) => s.id)).toEqual([1, 3, 5, 7, 9]);
    expect(connection.synStreamOrder).toEqual([1, 3, 5, 7, 9]);
    // The shared deflate context compressed the blocks in wire order: the server decoded
    // each block into the headers of the call that got that id.
    expect(seen.map((s) => [s.id, s.headers.streamtype])).toEqual(
      names.map((name, index) => [1 + 2 * index, name]),
    );
  });

  it('echoes 20 MiB each way intact, far past the 64 KiB SPDY window', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'data' });
    const remote = await serverSide;
    const echo = pipeline(remote.incoming, remote.outgoing);

    const payload = randomBytes(20 * MiB);
    const hash = createHash('sha256');
    let received = 0;
    const reading = (async () => {
      for await (const chunk of stream) {
        hash.update(chunk as Buffer);
        received += (chunk as Buffer).length;
      }
    })();
    await pipeline(
      Readable.from(
        (function* () {
          for (let offset = 0; offset < payload.length; offset += 3 * 100_000) {
            yield payload.subarray(offset, offset + 3 * 100_000);
          }
        })(),
      ),
      stream,
    );
    await Promise.all([reading, echo]);
    expect(received).toBe(payload.length);
    expect(hash.digest('hex')).toBe(sha256(payload));
  });

  it('stops reading the socket for a slow consumer: bounded memory, then everything arrives', async () => {
    const { session, connection } = await start();
    const total = 100 * MiB;
    const block = randomBytes(MiB);
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdout' });
    const remote = await serverSide;
    const sending = pipeline(
      Readable.from(
        (function* () {
          for (let sent = 0; sent < total; sent += block.length) yield block;
        })(),
      ),
      remote.outgoing,
    );

    // Nobody reads: the client must push back instead of buffering 100 MiB. Once its stream
    // is full, the server's writes wait for the socket to drain.
    await until(
      () => connection.waitingForDrain && stream.readableLength >= stream.readableHighWaterMark,
      30_000,
    );
    const bounded = (): void => {
      expect(stream.readableLength).toBeLessThan(4 * MiB);
      // What the server got rid of is bounded by our buffers plus the kernel's socket buffers.
      expect(connection.bytesSent).toBeLessThan(32 * MiB);
    };
    bounded();
    // And it stays so: a client that kept reading the socket would take in megabytes more.
    await new Promise((resolve) => setTimeout(resolve, 300));
    bounded();

    const expected = createHash('sha256');
    for (let sent = 0; sent < total; sent += block.length) expected.update(block);
    const hash = createHash('sha256');
    let received = 0;
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      received += (chunk as Buffer).length;
    }
    await sending;
    expect(received).toBe(total);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
    // 100 MiB through the fake server and two hashes: slow beside a CPU hog.
  }, 60_000);

  it('reads on once a stream that filled its buffer with its last frame has been read out', async () => {
    // The last DATA frame (FIN) fills the stream's buffer exactly: the session stops reading
    // for it, and the stream ends without asking for more (an ended stream never does).
    // Seen as a download whose tar had been read whole but whose exec never gave its exit
    // status: it was on the error stream, behind the paused socket.
    const { session, connection } = await start();
    const stdoutSide = nextServerStream(connection);
    const stdout = await open(session, { streamtype: 'stdout' });
    const stdoutRemote = await stdoutSide;
    const errorSide = nextServerStream(connection);
    const error = await open(session, { streamtype: 'error' });
    const errorRemote = await errorSide;
    const payload = randomBytes(stdout.readableHighWaterMark);
    await stdoutRemote.write(payload, true);
    await until(() => stdout.readableLength === payload.length);
    const status = drain(error);
    await errorRemote.write('{"status":"Success"}', true);
    const read = await drain(stdout);
    expect(sha256(read.data)).toBe(sha256(payload));
    const { data } = await status;
    expect(data.toString()).toBe('{"status":"Success"}');
  });

  it('delivers the data received before an error RST, then fails with its status', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdout' });
    const remote = await serverSide;
    const payload = randomBytes(300 * 1024);
    await remote.write(payload);
    remote.reset(RstStatus.InternalError);
    await until(() => stream.remoteResetStatus !== undefined);
    // Everything was buffered before the reset arrived; none of it is lost.
    const { data, error } = await drain(stream);
    expect(sha256(data)).toBe(sha256(payload));
    expect(error?.code).toBe('internal');
    expect(error?.detail).toMatch(/RST_STREAM INTERNAL_ERROR on stream 1/);
    // Writing to a reset stream fails instead of going nowhere.
    expect(stream.destroyed).toBe(true);
  });

  it('ends cleanly on RST CANCEL after data, as the runtime closes the error stream', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'error' });
    const remote = await serverSide;
    await remote.write('{"status":"Success"}');
    remote.reset(RstStatus.Cancel);
    await until(() => stream.remoteResetStatus !== undefined);
    const closed = once(stream, 'close');
    const { data, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(data.toString()).toBe('{"status":"Success"}');
    expect(stream.remoteResetStatus).toBe(RstStatus.Cancel);
    await closed;
  });

  it('follows the exec teardown: FIN, status without FIN, RST CANCEL, GOAWAY, close', async () => {
    const { session, connection } = await start();
    const remotes = new Map<string, FakeServerStream>();
    connection.onStream = (remote) => remotes.set(remote.headers.streamtype ?? '', remote);
    const [error, stdin, stdout] = await Promise.all(
      ['error', 'stdin', 'stdout'].map((name) => open(session, { streamtype: name })),
    );
    if (error === undefined || stdin === undefined || stdout === undefined) throw new Error();
    const sessionClosed = new Promise<AppError | undefined>((resolve) =>
      session.onDidClose(resolve),
    );
    const errorRead = drain(error);
    const stdoutRead = drain(stdout);
    const stdinClosed = once(stdin, 'close');
    stdin.resume(); // a stdin stream is read by nobody in real use; here, to see its end

    await remotes.get('stdout')?.write('output', true);
    await remotes.get('error')?.write('{"status":"Success"}');
    remotes.get('error')?.reset(RstStatus.Cancel);
    remotes.get('stdin')?.reset(RstStatus.Cancel);
    connection.goAway();
    connection.socket.end();

    expect((await stdoutRead).data.toString()).toBe('output');
    const status = await errorRead;
    expect(status.error).toBeUndefined();
    expect(status.data.toString()).toBe('{"status":"Success"}');
    expect(await sessionClosed).toBeUndefined();
    await stdinClosed;
    expect(session.closed).toBe(true);
  });

  it('handles every frame that came before the close: a short exec ends as it should', async () => {
    // CRI-O, a command that exits at once: the reply, the status, the resets, GOAWAY and
    // the TCP close all arrive together, while the reply's header block still inflates.
    const { session, connection } = await start({ autoReply: false });
    const serverSide = nextServerStream(connection);
    const opening = session.createStream({ streamtype: 'error' });
    const remote = await serverSide;
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    const socket = connection.socket as Socket;
    socket.cork();
    await remote.reply();
    socket.write(encodeDataFrame(remote.id, 0, Buffer.from('{"status":"Success"}')));
    socket.write(
      encodeControlFrame({ type: 'rst-stream', streamId: remote.id, status: RstStatus.Cancel }),
    );
    connection.goAway();
    socket.end();
    const stream = await opening;
    const { data } = await drain(stream);
    expect(data.toString()).toBe('{"status":"Success"}');
    expect(await closed).toBeUndefined();
  });

  it('rejects createStream when the server never answers, and resets the stream', async () => {
    const { session, connection } = await start({ autoReply: false });
    const started = Date.now();
    await expect(
      session.createStream({ streamtype: 'error' }, { timeoutMs: 150 }),
    ).rejects.toMatchObject({ code: 'deadline-exceeded' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await until(() => connection.received.some((f) => f.type === 'rst-stream'));
    expect(connection.received.find((f) => f.type === 'rst-stream')).toEqual({
      type: 'rst-stream',
      streamId: 1,
      status: RstStatus.Cancel,
    });
    // A late reply is ignored; the session goes on.
    await connection.reply(1);
    connection.autoReply = true;
    expect((await open(session, { streamtype: 'stdout' })).id).toBe(3);
  });

  it('bounds the streams waiting to be opened', async () => {
    const { session } = await start({ autoReply: false });
    const pending = Array.from({ length: 256 }, () =>
      session.createStream({ streamtype: 'x' }, { timeoutMs: 60_000 }).catch((e: unknown) => e),
    );
    await expect(session.createStream({ streamtype: 'y' })).rejects.toMatchObject({
      code: 'resource-exhausted',
    });
    session.dispose();
    for (const outcome of await Promise.all(pending)) {
      expect(outcome).toMatchObject({ code: 'cancelled' });
    }
  });

  it('rejects createStream on RST_STREAM with the runtime status', async () => {
    const { session, connection } = await start({ autoReply: false });
    connection.onStream = (remote) => remote.reset(RstStatus.ProtocolError);
    await expect(session.createStream({ streamtype: 'bogus' })).rejects.toMatchObject({
      code: 'protocol-error',
      detail: 'RST_STREAM PROTOCOL_ERROR on stream 1',
    });
  });

  it('closes with protocol-error on a malformed frame and fails open streams', async () => {
    const { session, connection } = await start();
    const stream = await open(session, { streamtype: 'stdout' });
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    const failed = drain(stream);
    // A control frame of SPDY version 2.
    connection.sendRaw(Buffer.from('800200060000000400000001', 'hex'));
    expect((await closed)?.code).toBe('protocol-error');
    expect((await failed).error?.code).toBe('protocol-error');
    await connection.closed;
    await expect(session.createStream({ streamtype: 'x' })).rejects.toMatchObject({
      code: 'protocol-error',
    });
  });

  it('closes with protocol-error on a header block that does not inflate', async () => {
    const { session, connection } = await start({ autoReply: false });
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    connection.onStream = (remote) =>
      connection.sendControl({
        type: 'syn-reply',
        flags: 0,
        streamId: remote.id,
        headerBlock: Buffer.from('garbage'),
      });
    await expect(session.createStream({ streamtype: 'x' })).rejects.toMatchObject({
      code: 'protocol-error',
    });
    expect((await closed)?.detail).toMatch(/does not inflate/);
  });

  it('stops opening streams after GOAWAY and closes normally when the server closes', async () => {
    const { session, connection } = await start();
    const stream = await open(session, { streamtype: 'stdout' });
    const reading = drain(stream);
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    connection.goAway();
    // Frames are handled in order: once the ping is answered, GOAWAY has been seen.
    await session.ping();
    await expect(session.createStream({ streamtype: 'x' })).rejects.toMatchObject({
      code: 'unavailable',
    });
    connection.socket.end();
    expect(await closed).toBeUndefined();
    // Left open by the server: ends cleanly, since the server said goodbye first.
    expect((await reading).error).toBeUndefined();
  });

  it('closes normally after our own GOAWAY once the server closes', async () => {
    const { session, connection } = await start();
    const stream = await open(session, { streamtype: 'stdout' });
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    session.goAway();
    await expect(session.createStream({ streamtype: 'x' })).rejects.toMatchObject({
      code: 'unavailable',
      detail: 'We sent GOAWAY.',
    });
    await session.ping();
    expect(connection.received.at(-1)).toEqual({ type: 'ping', id: 1 });
    expect(connection.received).toContainEqual({ type: 'goaway', lastGoodStreamId: 0, status: 0 });
    const reading = drain(stream);
    connection.socket.end();
    expect(await closed).toBeUndefined();
    expect((await reading).error).toBeUndefined();
  });

  it('fails streams awaiting SYN_REPLY above lastGoodStreamId on GOAWAY', async () => {
    const { session, connection } = await start({ autoReply: false });
    connection.onStream = (remote) => {
      if (remote.id === 1) void remote.reply();
      else connection.sendControl({ type: 'goaway', lastGoodStreamId: 1, status: 0 });
    };
    const first = await open(session, { streamtype: 'error' });
    await expect(session.createStream({ streamtype: 'stdout' })).rejects.toMatchObject({
      code: 'unavailable',
      detail: 'The runtime sent GOAWAY.',
    });
    expect(first.destroyed).toBe(false);
  });

  it('ends a stream on HEADERS with FIN', async () => {
    const { session, connection } = await start();
    const stream = await open(session, { streamtype: 'stdout' });
    const reading = drain(stream);
    await connection.headers(stream.id, { extra: 'x' }, true);
    expect((await reading).error).toBeUndefined();
  });

  it('survives a consumer whose data listener throws: the session ends as internal', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdout' });
    const remote = await serverSide;
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    stream.on('data', () => {
      throw new Error('consumer bug');
    });
    await remote.write('boom');
    const error = await closed;
    expect(error?.code).toBe('internal');
    expect(error?.detail).toBe('Error: consumer bug');
  });

  it('rejects pending createStream calls when disposed', async () => {
    const { session } = await start({ autoReply: false });
    const pending = session.createStream({ streamtype: 'error' });
    const queued = session.createStream({ streamtype: 'stdout' });
    session.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await expect(queued).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('reports connection-lost when the connection drops without GOAWAY, after the data', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdout' });
    const remote = await serverSide;
    await remote.write('partial');
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    await until(() => stream.readableLength > 0);
    connection.socket.destroy();
    expect((await closed)?.code).toBe('connection-lost');
    const { data, error } = await drain(stream);
    expect(data.toString()).toBe('partial');
    expect(error?.code).toBe('connection-lost');
  });

  it('dispose resets streams, sends GOAWAY, closes the socket, and is idempotent', async () => {
    const { session, connection } = await start();
    const stream = await open(session, { streamtype: 'stdin' });
    const failed = drain(stream);
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    session.dispose();
    session.dispose();
    expect(session.closed).toBe(true);
    expect(await closed).toBeUndefined();
    expect((await failed).error?.code).toBe('cancelled');
    await connection.closed;
    expect(connection.received.filter((f) => f.type !== 'syn-stream')).toEqual([
      { type: 'rst-stream', streamId: 1, status: RstStatus.Cancel },
      { type: 'goaway', lastGoodStreamId: 0, status: GoAwayStatus.Ok },
    ]);
    await expect(session.ping()).rejects.toMatchObject({ code: 'cancelled' });
    // Late listeners still hear about the close.
    expect(await new Promise((resolve) => session.onDidClose(resolve))).toBeUndefined();
  });

  it('answers pings with the round-trip time', async () => {
    const { session } = await start();
    const rtt = await session.ping();
    expect(rtt).toBeGreaterThanOrEqual(0);
    expect(rtt).toBeLessThan(1000);
    const many = await Promise.all([session.ping(), session.ping(), session.ping()]);
    expect(many).toHaveLength(3);
  });

  it('echoes server pings, ignores SETTINGS, WINDOW_UPDATE and unknown control frames', async () => {
    const { session, connection } = await start();
    connection.sendRaw(
      Buffer.concat([
        encodeControlFrame({
          type: 'settings',
          flags: 0,
          entries: [{ flags: 0, id: 7, value: 1 }],
        }),
        encodeControlFrame({ type: 'window-update', streamId: 0, delta: 1000 }),
        Buffer.from('8003000a00000003abcdef', 'hex'), // CREDENTIAL: unknown to us, skipped
        encodeControlFrame({ type: 'ping', id: 2 }),
      ]),
    );
    await until(() => connection.received.some((f) => f.type === 'ping'));
    expect(connection.received).toEqual([{ type: 'ping', id: 2 }]);
    const stream = await open(session, { streamtype: 'stdout' });
    expect(stream.id).toBe(1);
    expect(session.closed).toBe(false);
  });

  it('refuses a server-initiated SYN_STREAM with REFUSED_STREAM', async () => {
    const { session, connection } = await start();
    await open(session, { streamtype: 'stdout' });
    await connection.synStream(2, { streamtype: 'surprise' });
    await until(() => connection.received.some((f) => f.type === 'rst-stream'));
    expect(connection.received).toContainEqual({
      type: 'rst-stream',
      streamId: 2,
      status: RstStatus.RefusedStream,
    });
    // The block went through our inflate context, which stayed in step with the server's.
    expect((await open(session, { streamtype: 'stderr' })).id).toBe(3);
  });

  it('sends FIN with SYN_STREAM when asked, and on end()', async () => {
    const { session, connection } = await start();
    const finStream = await open(session, { streamtype: 'error' }, { fin: true });
    if (!finStream.writableFinished) await once(finStream, 'finish');
    expect(connection.received[0]).toMatchObject({ type: 'syn-stream', flags: FLAG_FIN });
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdin' });
    const remote = await serverSide;
    stream.end();
    await once(remote.incoming.resume(), 'end');
    expect(remote.clientFin).toBe(true);
  });

  it('validates headers before anything hits the wire', async () => {
    const { session, connection } = await start();
    await expect(session.createStream({ Connection: 'x' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    await expect(session.createStream({ A: '1', a: '2' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    await expect(session.createStream({ 'bad name': '1' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    await expect(session.createStream({ ok: 'line\nbreak' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
    expect(connection.received).toEqual([]);
  });

  it('splits large writes into 64 KiB DATA frames', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const stream = await open(session, { streamtype: 'stdin' });
    const remote = await serverSide;
    const sizes: number[] = [];
    remote.incoming.on('data', (chunk: Buffer) => sizes.push(chunk.length));
    stream.end(Buffer.alloc(200 * 1024));
    await once(remote.incoming, 'end');
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200 * 1024);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
  });

  it('drops late DATA for a stream that is over and keeps going', async () => {
    const { session, connection } = await start();
    const serverSide = nextServerStream(connection);
    const first = await open(session, { streamtype: 'stdout' });
    (await serverSide).reset(RstStatus.Cancel);
    await until(() => first.remoteResetStatus !== undefined);
    connection.sendRaw(encodeDataFrame(first.id, 0, Buffer.from('late')));
    const second = await open(session, { streamtype: 'stdout' });
    expect(second.id).toBe(3);
    expect(session.closed).toBe(false);
  });

  it('fails the session on DATA for a stream that was never opened', async () => {
    const { session, connection } = await start();
    const closed = new Promise<AppError | undefined>((resolve) => session.onDidClose(resolve));
    connection.sendRaw(encodeDataFrame(99, 0, Buffer.from('stray')));
    const error = await closed;
    expect(error).toMatchObject({
      code: 'protocol-error',
      detail: 'DATA frame for stream 99, which was never opened',
    });
  });
});
