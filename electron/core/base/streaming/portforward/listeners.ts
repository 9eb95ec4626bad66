/**
 * Local listeners for forwarded ports. By default a port listens on the loopback addresses
 * only: 127.0.0.1 and, when this machine has IPv6, ::1, on the SAME port number (so that
 * `localhost:<port>` works whichever family a client resolves it to). Any other address only
 * when asked for explicitly. Port 0 picks a free port: the first address chooses it, the
 * others take the same one (retrying with a new one if another family has it in use).
 *
 * Accepted sockets start paused (`pauseOnConnect`): nothing is read from a client until its
 * connection has somewhere to go, so a waiting client costs no memory beyond the kernel's.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Disposable } from '../../../../../shared/lifecycle';
import { invalidPort, isAddressInUse, isAddressUnavailable, listenError } from './errors';

export const LOOPBACK_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];
/**
 * Buffer per accepted socket and direction. Node's 16 KiB default is below one SPDY frame
 * (the runtime sends 32 KiB), so every frame would pause and resume the stream; 256 KiB
 * matches the SPDY stream's own readable buffer.
 */
const SOCKET_HIGH_WATER_MARK = 256 * 1024;
/** Attempts at finding a port free on every address, when the spec says 0. */
const FREE_PORT_ATTEMPTS = 8;

export interface ListenSpec {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default: loopback (127.0.0.1, and ::1 when available). */
  readonly addresses?: readonly string[];
}

export type ConnectionHandler = (socket: Socket) => void;

/** One port, listening on one or more addresses. Disposing closes it and every socket it accepted. */
export class LocalListener implements Disposable {
  private readonly sockets = new Set<Socket>();
  private disposed = false;

  constructor(
    private readonly servers: readonly Server[],
    readonly port: number,
    readonly addresses: readonly string[],
    onConnection: ConnectionHandler,
  ) {
    for (const server of servers) {
      server.on('connection', (socket: Socket) => {
        if (this.disposed) {
          socket.destroy();
          return;
        }
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        onConnection(socket);
      });
      // After a successful listen, errors are per accepted socket (e.g. EMFILE): nothing
      // to do about them here, and they must not crash the process.
      server.on('error', () => undefined);
    }
  }

  /** Accepted sockets not yet closed. */
  get connectionCount(): number {
    return this.sockets.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const server of this.servers) server.close();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

function bind(address: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({
      allowHalfOpen: true,
      pauseOnConnect: true,
      noDelay: true,
      highWaterMark: SOCKET_HIGH_WATER_MARK,
    });
    const onError = (error: Error): void => {
      server.close();
      reject(error);
    };
    server.once('error', onError);
    // exclusive: never share the port with a cluster sibling; ipv6Only keeps '::' from also
    // taking 0.0.0.0, which is a separate, explicit choice.
    server.listen({ host: address, port, exclusive: true, ipv6Only: address.includes(':') }, () => {
      server.off('error', onError);
      resolve(server);
    });
  });
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalidPort(port, 'local');
}

/** Listens on every address of `spec` on one port, or throws an AppError and listens on none. */
export async function listenLocal(
  spec: ListenSpec,
  onConnection: ConnectionHandler,
): Promise<LocalListener> {
  checkPort(spec.port);
  const explicit = spec.addresses !== undefined && spec.addresses.length > 0;
  const addresses = explicit ? (spec.addresses ?? []) : LOOPBACK_ADDRESSES;
  const attempts = spec.port === 0 ? FREE_PORT_ATTEMPTS : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const servers: Server[] = [];
    const bound: string[] = [];
    let port = spec.port;
    try {
      for (const address of addresses) {
        let server: Server;
        try {
          server = await bind(address, port);
        } catch (error) {
          // No IPv6 here: loopback means 127.0.0.1 alone. Asked-for addresses must all work.
          if (!explicit && address === '::1' && isAddressUnavailable(error)) continue;
          throw listenError(error, address, port);
        }
        servers.push(server);
        bound.push(address);
        if (port === 0) port = (server.address() as AddressInfo).port;
      }
      return new LocalListener(servers, port, bound, onConnection);
    } catch (error) {
      for (const server of servers) server.close();
      lastError = error;
      // The port the first address picked is taken on another one: pick again.
      const pickedHere = spec.port === 0 && servers.length > 0;
      if (!(pickedHere && isAddressInUse(error))) throw error;
    }
  }
  throw lastError;
}

/**
 * Listens on every spec, all or nothing: if one fails, the ones already listening are
 * closed and the failure is thrown.
 */
export async function listenAll(
  specs: readonly ListenSpec[],
  onConnection: (socket: Socket, index: number) => void,
): Promise<LocalListener[]> {
  const listeners: LocalListener[] = [];
  try {
    for (const [index, spec] of specs.entries()) {
      listeners.push(await listenLocal(spec, (socket) => onConnection(socket, index)));
    }
    return listeners;
  } catch (error) {
    for (const listener of listeners) listener.dispose();
    throw error;
  }
}
