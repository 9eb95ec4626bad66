/**
 * The gRPC bridge: grpc-js dials only addresses, not a Duplex, so CRI calls for a remote
 * node go to a unix socket of ours, and each connection accepted there is spliced to an SSH
 * streamlocal channel to the runtime's socket on the node.
 *
 * - The socket lives in a private temp dir (mkdtemp, mode 0700) that only this user can
 *   enter: a loopback TCP port would let every local user talk to the node's runtime.
 * - The socket keeps existing while SSH reconnects, so the same CriClient works again
 *   once the node is back.
 * - When no channel can be opened (SSH reconnecting, runtime socket refused), the
 *   connection is answered by a tiny HTTP/2 server that fails every call at once with a
 *   gRPC status and our explanation, then sends GOAWAY. Calls therefore fail fast with a
 *   reason instead of waiting out their deadline, and grpc-js connects afresh (without
 *   its reconnect backoff) on the next call.
 */
import { createServer as createHttp2Server, type ServerHttp2Session } from 'node:http2';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { AppError, ErrorCode } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';

/** gRPC status codes (grpc/status.h) for the errors the bridge answers with. */
const grpcStatusByCode: Partial<Record<ErrorCode, number>> = {
  cancelled: 1,
  'invalid-argument': 3,
  'deadline-exceeded': 4,
  'not-found': 5,
  'permission-denied': 7,
  'failed-precondition': 9,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  'connection-lost': 14,
  unauthenticated: 16,
};

export interface BridgeOptions {
  /** Part of the temp dir's name, so a path in a message hints at the node. */
  readonly label: string;
  /** Where the private dir is made; os.tmpdir() by default. */
  readonly tempRoot?: string;
  /** Why no channel can be opened now, or undefined when one can. */
  readonly unavailable: () => AppError | undefined;
  /** Opens a stream to the runtime socket on the node. */
  readonly open: () => Promise<Duplex>;
}

export class GrpcBridge implements Disposable {
  private readonly spliced = new Set<{ local: Socket; remote: Duplex }>();
  private readonly parked = new Set<ServerHttp2Session>();
  /** The error each responder session answers with. */
  private readonly answers = new WeakMap<object, AppError>();
  /** Set only while a socket is handed to the responder, which creates its session synchronously. */
  private handingOver: AppError | undefined;
  private readonly responder = createHttp2Server();
  private disposed = false;

  private constructor(
    readonly dir: string,
    readonly socketPath: string,
    private readonly server: Server,
    private readonly options: BridgeOptions,
  ) {
    this.responder.on('session', (session) => this.park(session));
    this.responder.on('stream', (stream) => {
      const error = stream.session ? this.answers.get(stream.session) : undefined;
      const text = error === undefined ? 'The node is not reachable.' : describe(error);
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': String(
            (error && grpcStatusByCode[error.code]) ?? grpcStatusByCode.unavailable,
          ),
          'grpc-message': encodeGrpcMessage(text),
        },
        { endStream: true },
      );
      stream.on('error', () => {});
      // One answer per connection: the next call must come back through open().
      const session = stream.session;
      stream.once('close', () => session?.close());
    });
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Creates the private dir and listens on `<dir>/cri.sock`. */
  static async create(options: BridgeOptions): Promise<GrpcBridge> {
    const safe = options.label.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 24);
    const dir = mkdtempSync(join(options.tempRoot ?? tmpdir(), `porthole-ssh-${safe}-`));
    try {
      // mkdtemp already makes 0700; say so explicitly, and check, since this is the whole
      // access control for the node's runtime.
      chmodSync(dir, 0o700);
      if ((statSync(dir).mode & 0o077) !== 0) throw new Error(`${dir} is not private`);
      const socketPath = join(dir, 'cri.sock');
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return new GrpcBridge(dir, socketPath, server, options);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** `unix:///…/cri.sock`, for CriClient.create. */
  get endpoint(): string {
    return `unix://${this.socketPath}`;
  }

  /** The SSH connection dropped: cut every spliced connection (gRPC sees it at once). */
  dropAll(): void {
    for (const pair of this.spliced) {
      pair.local.destroy();
      pair.remote.destroy();
    }
    this.spliced.clear();
  }

  /** Channels can be opened again: send clients parked on the responder back (GOAWAY). */
  refresh(): void {
    for (const session of this.parked) session.close();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.dropAll();
    for (const session of this.parked) session.destroy();
    this.parked.clear();
    this.server.close();
    this.responder.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(socket: Socket): void {
    if (this.disposed) {
      socket.destroy();
      return;
    }
    socket.on('error', () => {});
    const down = this.options.unavailable();
    if (down !== undefined) {
      this.answer(socket, down);
      return;
    }
    this.options.open().then(
      (remote) => {
        if (this.disposed || socket.destroyed) {
          remote.destroy();
          socket.destroy();
          return;
        }
        this.splice(socket, remote);
      },
      (error: AppError) => this.answer(socket, error),
    );
  }

  private splice(local: Socket, remote: Duplex): void {
    const pair = { local, remote };
    this.spliced.add(pair);
    const close = (): void => {
      if (!this.spliced.delete(pair)) return;
      local.destroy();
      remote.destroy();
    };
    remote.on('error', close);
    remote.once('close', close);
    local.once('close', close);
    local.pipe(remote);
    remote.pipe(local);
  }

  /** Hands the raw connection to the HTTP/2 responder, which fails its calls with `error`. */
  private answer(socket: Socket, error: AppError): void {
    if (this.disposed || socket.destroyed) {
      socket.destroy();
      return;
    }
    this.handingOver = error;
    try {
      this.responder.emit('connection', socket);
    } finally {
      this.handingOver = undefined;
    }
  }

  private park(session: ServerHttp2Session): void {
    if (this.handingOver !== undefined) this.answers.set(session, this.handingOver);
    this.parked.add(session);
    session.on('error', () => {});
    session.once('close', () => this.parked.delete(session));
    // A client that connected but never calls must not hold the session forever.
    session.setTimeout(5000, () => session.close());
  }
}

/**
 * grpc-message is percent-encoded per the gRPC HTTP/2 spec: only bytes outside printable
 * ASCII, and `%` itself. (encodeURIComponent would also encode `:` `;` `,`, which grpc-js
 * does not decode back.)
 */
export function encodeGrpcMessage(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The whole explanation in one line: grpc-js shows only this text. */
function describe(error: AppError): string {
  return [error.message, error.detail, error.hint].filter((part) => part !== undefined).join(' ');
}
