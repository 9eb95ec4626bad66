import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import {
  HeaderCompressor,
  HeaderDecompressor,
  encodeHeaderBlock,
  type HeaderMap,
} from '../compression';
import {
  FLAG_FIN,
  FrameParser,
  GoAwayStatus,
  encodeControlFrame,
  encodeDataFrameHeader,
  type ControlFrame,
  type FrameHandler,
} from '../frames';

/**
 * An in-process SPDY/3.1 stream server that behaves like spdystream behind a CRI runtime's
 * stream server, for tests: HTTP upgrade with X-Stream-Protocol-Version negotiation (403 with
 * a text body when nothing matches), header-less SYN_REPLYs, no flow control, and TCP
 * backpressure both ways. Tests drive it per connection (reply or not, reset, GOAWAY, raw
 * bytes). Built on the same codec as the client, which its own unit tests pin to the spec.
 */

export interface FakeSpdyServerOptions {
  /** What the server accepts, e.g. ['v4.channel.k8s.io', …]. */
  readonly protocols?: readonly string[];
  /** Answer SYN_STREAMs at once (as spdystream does). Default true. */
  readonly autoReply?: boolean;
  /** Called for every upgraded connection, before any of its frames is handled. */
  readonly onConnection?: (connection: FakeSpdyServerConnection) => void;
  /** Serve HTTPS with this key and certificate. */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Bytes per DATA frame the server sends (spdystream: the io.Copy buffer, 32 KiB). */
  readonly dataFrameSize?: number;
  /** Answer 101 without X-Stream-Protocol-Version, as servers from before versioning. */
  readonly omitProtocolHeader?: boolean;
  /** Raw bytes sent in the same write as the 101 answer (they reach the client as `head`). */
  readonly afterUpgrade?: Buffer;
}

export interface UpgradeRequestRecord {
  readonly method: string;
  readonly path: string;
  /** Header lines as sent, [name, value] pairs in order. */
  readonly headerLines: readonly (readonly [string, string])[];
}

const DEFAULT_PROTOCOLS = [
  'v4.channel.k8s.io',
  'v3.channel.k8s.io',
  'v2.channel.k8s.io',
  'channel.k8s.io',
];

export class FakeSpdyServer {
  readonly connections: FakeSpdyServerConnection[] = [];
  readonly requests: UpgradeRequestRecord[] = [];
  private readonly sockets = new Set<Duplex>();

  private constructor(
    private readonly server: Server,
    private readonly options: FakeSpdyServerOptions,
    private readonly scheme: 'http' | 'https',
  ) {}

  static async start(options: FakeSpdyServerOptions = {}): Promise<FakeSpdyServer> {
    const server = options.tls !== undefined ? createHttpsServer(options.tls) : createHttpServer();
    const fake = new FakeSpdyServer(server, options, options.tls ? 'https' : 'http');
    server.on('request', (_request: IncomingMessage, response) => {
      response.statusCode = 400;
      response.end('missing upgrade headers in request');
    });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      fake.onUpgrade(request, socket, head),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * A stream URL. Paths starting with /expired answer 404 (a used or unknown token), with
   * /bad-request 400.
   */
  url(path = '/exec/token'): string {
    return `${this.scheme}://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const headerLines: [string, string][] = [];
    for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
      headerLines.push([request.rawHeaders[i] ?? '', request.rawHeaders[i + 1] ?? '']);
    }
    const path = request.url ?? '/';
    this.requests.push({ method: request.method ?? '', path, headerLines });

    if (path.startsWith('/expired')) {
      plainAnswer(socket, 404, 'Not Found', 'stream token not found or expired');
      return;
    }
    if (
      path.startsWith('/bad-request') ||
      (request.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1'
    ) {
      plainAnswer(socket, 400, 'Bad Request', 'unable to upgrade: missing upgrade headers');
      return;
    }
    // Every X-Stream-Protocol-Version line, each possibly comma-separated, as the runtime.
    const offered = headerLines
      .filter(([name]) => name.toLowerCase() === 'x-stream-protocol-version')
      .flatMap(([, value]) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value !== '');
    const supported = this.options.protocols ?? DEFAULT_PROTOCOLS;
    const chosen = offered.find((protocol) => supported.includes(protocol));
    if (chosen === undefined) {
      plainAnswer(
        socket,
        403,
        'Forbidden',
        `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${supported.join(' ')}]`,
      );
      return;
    }
    const answer = Buffer.from(
      'HTTP/1.1 101 Switching Protocols\r\n' +
        'Connection: Upgrade\r\n' +
        'Upgrade: SPDY/3.1\r\n' +
        (this.options.omitProtocolHeader ? '' : `X-Stream-Protocol-Version: ${chosen}\r\n`) +
        '\r\n',
    );
    socket.write(Buffer.concat([answer, this.options.afterUpgrade ?? Buffer.alloc(0)]));
    const connection = new FakeSpdyServerConnection(socket, chosen, {
      autoReply: this.options.autoReply ?? true,
      dataFrameSize: this.options.dataFrameSize ?? 32 * 1024,
    });
    this.connections.push(connection);
    this.options.onConnection?.(connection);
    connection.start(head);
  }
}

function plainAnswer(socket: Duplex, status: number, reason: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export class FakeServerStream {
  /** What the client sent on this stream; ends at the client's FIN. Backpressured. */
  readonly incoming = new PassThrough({ highWaterMark: 256 * 1024 });
  /** Writes DATA frames to the client with socket backpressure; end() sends FIN. */
  readonly outgoing: Writable;
  clientFin = false;
  clientReset: number | undefined;

  constructor(
    readonly connection: FakeSpdyServerConnection,
    readonly id: number,
    readonly headers: HeaderMap,
    readonly synFlags: number,
  ) {
    this.outgoing = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        connection.sendData(id, chunk, false).then(() => callback(), callback);
      },
      final: (callback) => {
        connection.sendData(id, Buffer.alloc(0), true).then(() => callback(), callback);
      },
    });
    this.outgoing.on('error', () => undefined);
  }

  reply(fin = false): Promise<void> {
    return this.connection.reply(this.id, fin);
  }

  write(data: Buffer | string, fin = false): Promise<void> {
    return this.connection.sendData(this.id, Buffer.from(data), fin);
  }

  reset(status: number): void {
    this.connection.sendControl({ type: 'rst-stream', streamId: this.id, status });
  }
}

export class FakeSpdyServerConnection implements FrameHandler {
  readonly streams = new Map<number, FakeServerStream>();
  /** Stream ids in the order their SYN_STREAMs arrived. */
  readonly synStreamOrder: number[] = [];
  /** Every control frame received, in order (tests only: unbounded on purpose). */
  readonly received: ControlFrame[] = [];
  /** DATA payload bytes the socket accepted from us. */
  bytesSent = 0;
  /** True while a write waits for the socket to drain: the client stopped reading. */
  waitingForDrain = false;
  /** Set to handle new streams (after the SYN_STREAM was decoded). */
  onStream: ((stream: FakeServerStream) => void) | undefined;
  autoReply: boolean;
  readonly closed: Promise<void>;
  private readonly parser = new FrameParser(this);
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly dataFrameSize: number;
  private decoding = false;
  private stalledStreams = 0;
  private replyChain: Promise<unknown> = Promise.resolve();
  failure: Error | undefined;

  constructor(
    readonly socket: Duplex,
    readonly protocol: string,
    options: { readonly autoReply: boolean; readonly dataFrameSize: number },
  ) {
    this.autoReply = options.autoReply;
    this.dataFrameSize = options.dataFrameSize;
    this.closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.once('close', () => {
      this.compressor.dispose();
      this.decompressor.dispose();
      for (const stream of this.streams.values()) {
        if (!stream.clientFin) stream.incoming.destroy();
      }
    });
  }

  start(head: Buffer): void {
    this.socket.on('data', (chunk: Buffer) => this.push(chunk));
    // spdystream's read loop ends at EOF and closes the connection (HTTP server sockets
    // allow half-open connections, so close explicitly).
    this.socket.on('end', () => this.socket.end());
    if (head.length > 0) this.push(head);
    if (!this.decoding) this.socket.resume();
  }

  sendRaw(bytes: Buffer): boolean {
    return this.socket.write(bytes);
  }

  sendControl(frame: ControlFrame): void {
    this.socket.write(encodeControlFrame(frame));
  }

  goAway(status: number = GoAwayStatus.Ok): void {
    this.sendControl({ type: 'goaway', lastGoodStreamId: 0, status });
  }

  /** SYN_REPLY without headers, like spdystream. Replies go out in call order. */
  reply(streamId: number, fin = false): Promise<void> {
    const next = this.replyChain.then(async () => {
      const headerBlock = await this.compressor.compress(encodeHeaderBlock({}));
      this.sendControl({ type: 'syn-reply', flags: fin ? FLAG_FIN : 0, streamId, headerBlock });
    });
    this.replyChain = next.catch(() => undefined);
    return next;
  }

  /** A HEADERS frame (spdystream never sends one; for tests of the client's handling). */
  headers(streamId: number, headers: HeaderMap, fin = false): Promise<void> {
    const next = this.replyChain.then(async () => {
      const headerBlock = await this.compressor.compress(encodeHeaderBlock(headers));
      this.sendControl({ type: 'headers', flags: fin ? FLAG_FIN : 0, streamId, headerBlock });
    });
    this.replyChain = next.catch(() => undefined);
    return next;
  }

  /** A server-initiated stream (spdystream never opens one towards a CRI client). */
  synStream(streamId: number, headers: HeaderMap): Promise<void> {
    const next = this.replyChain.then(async () => {
      const headerBlock = await this.compressor.compress(encodeHeaderBlock(headers));
      this.sendControl({
        type: 'syn-stream',
        flags: 0,
        streamId,
        associatedStreamId: 0,
        priority: 0,
        slot: 0,
        headerBlock,
      });
    });
    this.replyChain = next.catch(() => undefined);
    return next;
  }

  /** DATA frames; resolves when the socket accepted them (drained), like a blocking write. */
  async sendData(streamId: number, data: Buffer, fin: boolean): Promise<void> {
    if (this.socket.destroyed) throw new Error('connection closed');
    let accepted = true;
    if (data.length === 0) {
      accepted = this.socket.write(encodeDataFrameHeader(streamId, fin ? FLAG_FIN : 0, 0));
    }
    for (let offset = 0; offset < data.length; offset += this.dataFrameSize) {
      const piece = data.subarray(offset, offset + this.dataFrameSize);
      const last = offset + piece.length >= data.length;
      this.socket.write(encodeDataFrameHeader(streamId, fin && last ? FLAG_FIN : 0, piece.length));
      accepted = this.socket.write(piece);
      this.bytesSent += piece.length;
    }
    if (!accepted) await this.drained();
  }

  private drained(): Promise<void> {
    this.waitingForDrain = true;
    return new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        this.waitingForDrain = false;
        this.socket.off('drain', onDrain);
        this.socket.off('close', onClose);
      };
      const onDrain = (): void => {
        cleanup();
        resolve();
      };
      const onClose = (): void => {
        cleanup();
        reject(new Error('connection closed'));
      };
      this.socket.on('drain', onDrain);
      this.socket.on('close', onClose);
    });
  }

  // ---- FrameHandler ---------------------------------------------------------------------

  onControlFrame(frame: ControlFrame): void {
    this.received.push(frame);
    switch (frame.type) {
      case 'syn-stream': {
        this.synStreamOrder.push(frame.streamId);
        this.pauseFor(
          this.decompressor.decompress(frame.headerBlock).then((headers) => {
            const stream = new FakeServerStream(this, frame.streamId, headers, frame.flags);
            this.streams.set(frame.streamId, stream);
            if ((frame.flags & FLAG_FIN) !== 0) {
              stream.clientFin = true;
              stream.incoming.end();
            }
            this.onStream?.(stream);
            if (this.autoReply) void stream.reply().catch(() => undefined);
          }),
        );
        return;
      }
      case 'syn-reply':
      case 'headers':
        this.pauseFor(this.decompressor.decompress(frame.headerBlock).then(() => undefined));
        return;
      case 'rst-stream': {
        const stream = this.streams.get(frame.streamId);
        if (stream !== undefined) {
          stream.clientReset = frame.status;
          if (!stream.clientFin) stream.incoming.end();
        }
        return;
      }
      case 'ping':
        // spdystream echoes the client's (odd) pings.
        if (frame.id % 2 === 1) this.sendControl(frame);
        return;
      case 'goaway':
      case 'settings':
      case 'window-update':
        return;
    }
  }

  onDataFrame(streamId: number, flags: number, piece: Buffer, last: boolean): void {
    const stream = this.streams.get(streamId);
    if (stream === undefined || stream.clientFin) return;
    if (piece.length > 0 && !stream.incoming.write(piece)) {
      // Like spdystream's unbuffered data channel: stop reading until the consumer catches up.
      this.stalledStreams++;
      this.socket.pause();
      stream.incoming.once('drain', () => {
        this.stalledStreams--;
        if (this.stalledStreams === 0 && !this.decoding) this.socket.resume();
      });
    }
    if (last && (flags & FLAG_FIN) !== 0) {
      stream.clientFin = true;
      stream.incoming.end();
    }
  }

  private push(chunk: Buffer): void {
    try {
      this.parser.push(chunk);
    } catch (error) {
      this.failure = error as Error;
      this.socket.destroy();
    }
  }

  private pauseFor(work: Promise<void>): void {
    this.decoding = true;
    this.parser.pause();
    this.socket.pause();
    work.then(
      () => {
        this.decoding = false;
        if (this.stalledStreams === 0) this.socket.resume();
        try {
          this.parser.resume();
        } catch (error) {
          this.failure = error as Error;
          this.socket.destroy();
        }
      },
      (error: unknown) => {
        this.failure = error as Error;
        this.socket.destroy();
      },
    );
  }
}
