/**
 * An in-process fake of a CRI stream server's WebSocket side (the Kubernetes
 * `*.channel.k8s.io` protocol), for faults the real runtimes won't produce on demand:
 * v5-only servers, malformed frames, garbage statuses, servers that vanish, TLS.
 *
 * Like the real one: single-use tokens (a second request gets 404), the client's
 * protocols are read from the first Sec-WebSocket-Protocol line and the first one this
 * server supports wins (none → 403 with an empty body), and the first message after the
 * upgrade is empty on the lowest output channel.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 };

export interface FakeSessionRequest {
  readonly token: string;
  readonly protocol: string;
  readonly offered: readonly string[];
}

/** One accepted connection, with helpers in protocol terms. */
export class FakeStreamConnection {
  readonly base64: boolean;
  constructor(
    readonly ws: WebSocket,
    readonly request: FakeSessionRequest,
    /** The upgraded TCP socket under `ws`. */
    private readonly socket: Duplex,
  ) {
    this.base64 = request.protocol.includes('base64');
  }

  /**
   * Stops speaking WebSocket on this connection: the server no longer reads the client's
   * frames (a close frame goes unanswered), and `writeRaw` puts bytes straight onto the
   * socket, outside any frame. What a broken or hostile server does after a valid 101.
   */
  hijack(): void {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('end');
    this.socket.on('data', () => undefined);
  }

  writeRaw(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.write(bytes, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Sends one message on a channel; resolves once it is on the socket (backpressure). */
  send(channel: number, data: Uint8Array | string): Promise<void> {
    const payload = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    const message = this.base64
      ? String.fromCharCode(0x30 + channel) + payload.toString('base64')
      : Buffer.concat([Buffer.from([channel]), payload]);
    return new Promise((resolve, reject) =>
      this.ws.send(message, { binary: !this.base64 }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }

  /** Sends raw bytes as one message, bypassing the channel framing (for malformed input). */
  sendRaw(data: Buffer | string, binary: boolean): Promise<void> {
    return new Promise((resolve, reject) =>
      this.ws.send(data, { binary }, (error) => (error ? reject(error) : resolve())),
    );
  }

  sendStatus(status: unknown): Promise<void> {
    return this.send(CHANNEL.error, typeof status === 'string' ? status : JSON.stringify(status));
  }

  /** Decoded messages from the client: `{ channel, payload }`; CLOSE arrives as channel 255. */
  onMessage(listener: (channel: number, payload: Buffer) => void): void {
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        listener(data[0] ?? -1, data.subarray(1));
      } else {
        const text = data.toString('latin1');
        listener(text.charCodeAt(0) - 0x30, Buffer.from(text.slice(1), 'base64'));
      }
    });
  }

  close(code = 1000): void {
    this.ws.close(code);
  }

  /** Drops the TCP connection without a close frame (a crashed or killed server). */
  kill(): void {
    this.ws.terminate();
  }
}

export interface FakeStreamServerOptions {
  /** Protocols this server speaks. */
  readonly protocols: readonly string[];
  /** Runs per accepted connection. */
  readonly onConnection: (connection: FakeStreamConnection) => void | Promise<void>;
  /** Serve https/wss with this key and certificate. */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Skip the empty first message the real server sends. */
  readonly noHello?: boolean;
}

export class FakeStreamServer implements AsyncDisposable {
  /** Every upgrade request seen, accepted or not. */
  readonly requests: {
    readonly path: string;
    readonly protocolHeader: string;
    readonly status: number;
  }[] = [];
  readonly connections: FakeStreamConnection[] = [];
  private readonly tokens = new Set<string>();
  private readonly sockets = new Set<Duplex>();
  /** The protocol chosen per request, for ws's handleProtocols. */
  private readonly chosen = new WeakMap<IncomingMessage, string>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_offered, request) => this.chosen.get(request) ?? false,
  });

  private constructor(
    private readonly server: Server,
    private readonly options: FakeStreamServerOptions,
  ) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (_req, res) => {
      res.writeHead(400).end('not a WebSocket request');
    });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(request, socket, head),
    );
  }

  static async start(options: FakeStreamServerOptions): Promise<FakeStreamServer> {
    const server = options.tls
      ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert })
      : createHttpServer();
    const fake = new FakeStreamServer(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A fresh single-use URL, as an Exec RPC would return. */
  url(kind: 'exec' | 'attach' = 'exec'): string {
    const token = randomBytes(6).toString('base64url');
    this.tokens.add(token);
    return `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}/${kind}/${token}`;
  }

  /** Drops every TCP connection at once, as if the server process died. */
  killAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.killAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private refuse(socket: Duplex, status: number, text: string, path: string, header: string): void {
    this.requests.push({ path, protocolHeader: header, status });
    socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  }

  private onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = request.url ?? '';
    const token = path.split('/').pop() ?? '';
    const raw = request.headersDistinct['sec-websocket-protocol']?.[0] ?? '';
    // Tokens are consumed by the first request, success or not.
    if (!this.tokens.delete(token)) {
      this.refuse(socket, 404, 'Not Found', path, raw);
      return;
    }
    const offered = raw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const protocol = offered.find((p) => this.options.protocols.includes(p));
    if (protocol === undefined) {
      this.refuse(socket, 403, 'Forbidden', path, raw);
      return;
    }
    this.requests.push({ path, protocolHeader: raw, status: 101 });
    this.chosen.set(request, protocol);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new FakeStreamConnection(ws, { token, protocol, offered }, socket);
      this.connections.push(connection);
      ws.on('error', () => undefined);
      const hello = this.options.noHello ? Promise.resolve() : connection.send(CHANNEL.stdout, '');
      void hello.then(() => this.options.onConnection(connection)).catch(() => connection.kill());
    });
  }
}

/** The v4 status JSON as containerd writes it. */
export function statusJson(exitCode: number): string {
  return exitCode === 0
    ? JSON.stringify({ metadata: {}, status: 'Success' })
    : JSON.stringify({
        metadata: {},
        status: 'Failure',
        message: `command terminated with non-zero exit code: exit code ${exitCode}`,
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
      });
}
