import { access } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventSource, ServiceHandlers } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { serve } from '../../../shared/rpc';
import { setSecurityHeaders } from './security-headers';
import { joinRoot, resolveStaticPath, serveFile } from './static-files';
import { createToken, tokenMatches } from './token';
import { webSocketPort } from './websocket-port';

export interface HostOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. Anything not loopback needs `allowRemote`. */
  readonly host?: string;
  /**
   * Accept a non-loopback bind address. Anyone who can reach it and learns the token
   * controls the runtimes this host can reach; a warning is printed.
   */
  readonly allowRemote?: boolean;
  /** The built renderer (index.html and assets). */
  readonly staticDir: string;
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  /** Default: a fresh random token. Tests may fix one. */
  readonly token?: string;
  /** Where warnings go; default stderr. */
  readonly warn?: (message: string) => void;
}

export interface Host {
  /** The page URL, token included: what the user opens. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: the only Origin the WebSocket accepts. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  /** Number of open RPC connections. */
  readonly connections: number;
  close(): Promise<void>;
}

/** The one WebSocket endpoint that carries the RPC. */
export const rpcPath = '/rpc';

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(host: string): boolean {
  return loopbackHosts.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Browser mode: serves the built renderer and carries the contract over one WebSocket.
 * The page needs `?token=` to load, and every WebSocket upgrade needs the token and an
 * Origin equal to this host's own origin, so other pages in the same browser (and other
 * users of the machine) can't drive it. Binds loopback only, unless told otherwise.
 */
export async function startHost(options: HostOptions): Promise<Host> {
  const bindHost = options.host ?? '127.0.0.1';
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  if (!isLoopback(bindHost)) {
    if (options.allowRemote !== true) {
      throw new AppError({
        code: 'invalid-argument',
        message: `Refusing to listen on ${bindHost}: only loopback addresses are allowed by default.`,
        hint: 'Pass allowRemote (--allow-remote) if other machines really should reach this host.',
      });
    }
    warn(
      `WARNING: Porthole is listening on ${bindHost}, reachable from other machines. ` +
        'Anyone with the URL (and its token) controls the container runtimes this host can reach.',
    );
  }
  const indexPath = joinRoot(options.staticDir, 'index.html');
  try {
    await access(indexPath);
  } catch {
    throw new AppError({
      code: 'failed-precondition',
      message: `The renderer is not built: ${indexPath} is missing.`,
      hint: 'Run `npm run build` first.',
    });
  }

  const token = options.token ?? createToken();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  let origin = '';
  let allowedOrigins = new Set<string>();

  /** The Host header must name this server: defeats DNS rebinding. */
  const hostAllowed = (request: IncomingMessage): boolean => {
    const header = request.headers.host;
    if (header === undefined) return false;
    if (bindHost === '0.0.0.0' || bindHost === '::') return true;
    return allowedOrigins.has(`http://${header}`);
  };

  const originAllowed = (request: IncomingMessage): boolean => {
    const header = request.headers.origin;
    if (header === undefined) return false;
    if (bindHost === '0.0.0.0' || bindHost === '::')
      return header === `http://${request.headers.host ?? ''}`;
    return allowedOrigins.has(header) && header === `http://${request.headers.host ?? ''}`;
  };

  const handleRequest = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    setSecurityHeaders(response, origin);
    if (!hostAllowed(request)) return plain(response, 421, 'Misdirected request');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return plain(response, 405, 'Method not allowed');
    }
    const url = new URL(request.url ?? '/', origin);
    const isFile = /\.[a-z0-9]+$/i.test(url.pathname) && url.pathname !== '/index.html';
    if (!isFile) {
      // The app itself (any route without a file extension): only with the token.
      const presented = url.searchParams.get('token');
      if (presented === null)
        return plain(response, 401, 'Open the URL Porthole printed, token included.');
      if (!tokenMatches(presented, token)) return plain(response, 403, 'Wrong token.');
      const served = await serveFile(request, response, options.staticDir, indexPath, 'no-store');
      if (!served) plain(response, 500, 'index.html is missing');
      return;
    }
    const path = resolveStaticPath(options.staticDir, url.pathname);
    if (path === undefined) return plain(response, 404, 'Not found');
    // Built assets have content hashes in their names: cache them; not the rest.
    const cache = url.pathname.startsWith('/assets/')
      ? 'public, max-age=31536000, immutable'
      : 'no-cache';
    if (!(await serveFile(request, response, options.staticDir, path, cache))) {
      plain(response, 404, 'Not found');
    }
  };

  const server = createServer((request, response) => {
    handleRequest(request, response).catch(() => {
      if (!response.headersSent) plain(response, 500, 'Internal error');
      else response.destroy();
    });
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, reason: string): void => {
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
      );
    };
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname !== rpcPath) return refuse(404, 'Not Found');
    if (!hostAllowed(request)) return refuse(421, 'Misdirected Request');
    if (!originAllowed(request)) return refuse(403, 'Forbidden');
    const presented = url.searchParams.get('token');
    if (presented === null) return refuse(401, 'Unauthorized');
    if (!tokenMatches(presented, token)) return refuse(403, 'Forbidden');
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      const port = webSocketPort(ws);
      const serving = serve(port, options.services, options.events);
      // Pings find peers that vanished without a close (a suspended laptop, a killed tab).
      let alive = true;
      ws.on('pong', () => (alive = true));
      const heartbeat = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, 30_000);
      port.onClose(() => {
        clearInterval(heartbeat);
        serving.dispose();
        sockets.delete(ws);
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${hostForUrl(bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost)}:${port}`;
  allowedOrigins = new Set(
    isLoopback(bindHost)
      ? [origin, `http://localhost:${port}`, `http://127.0.0.1:${port}`]
      : [origin],
  );

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    get connections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.statusCode = status;
  response.setHeader('Content-Type', 'text/plain; charset=utf-8');
  response.setHeader('Cache-Control', 'no-store');
  response.end(text);
}
