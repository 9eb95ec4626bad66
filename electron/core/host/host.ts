import { access } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventSource, ServiceHandlers } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { defaultRpcLimits, serve, type RpcLimits } from '../../../shared/rpc';
import { logger } from '../base/log';
import { setSecurityHeaders } from './security-headers';
import { BrowserLogin } from './login';
import { joinRoot, resolveStaticPath, serveFile } from './static-files';
import { certificateFingerprint, type HostTls } from './tls';
import { webSocketPort, type OutgoingBufferLimits } from './websocket-port';

export interface HostOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. Anything not loopback needs `allowRemote` and `tls`. */
  readonly host?: string;
  /**
   * Accept a non-loopback bind address. Anyone who can reach it and holds a link (or the
   * login cookie) controls the runtimes this host can reach; a warning is printed.
   */
  readonly allowRemote?: boolean;
  /**
   * Serve HTTPS (and WSS) with this key and certificate. Required beyond loopback: the
   * login cookie and every passphrase typed into the page would otherwise cross the network
   * in plain text.
   */
  readonly tls?: HostTls;
  /** The built renderer (index.html and assets). */
  readonly staticDir: string;
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  /** RPC connections at once; default 16. More are refused with 503. */
  readonly maxConnections?: number;
  /** Per-connection RPC limits; default `defaultRpcLimits`. */
  readonly limits?: Partial<RpcLimits>;
  /** What may wait to be sent to one client; default `defaultOutgoingBufferLimits`. */
  readonly outgoingBuffer?: OutgoingBufferLimits;
  /** Where warnings go; default stderr. */
  readonly warn?: (message: string) => void;
  /** Hears every request the RPC refused (a limit, an unknown method…), e.g. for a log. */
  readonly onRefused?: (error: AppError) => void;
}

export interface Host {
  /** `http(s)://127.0.0.1:<port>`: the only Origin the WebSocket accepts (on loopback). */
  readonly origin: string;
  readonly port: number;
  /**
   * A fresh one-time link that opens the app in one browser: the first load sets the
   * login cookie, after that the link opens nothing. `onUsed` runs when it is spent.
   */
  issueUrl(onUsed?: () => void): string;
  /** `name=value` of the login cookie, for clients that are not browsers (tests, benches). */
  readonly loginCookie: string;
  /** SHA-256 fingerprint of the certificate (`AB:CD:…`) when serving HTTPS. */
  readonly tlsFingerprint?: string;
  /** Number of open RPC connections. */
  readonly connections: number;
  close(): Promise<void>;
}

/** The one WebSocket endpoint that carries the RPC. */
export const rpcPath = '/rpc';

/** Files are only served from here: the build's content-hashed output. */
const assetsPrefix = '/assets/';

const defaultMaxConnections = 16;

const hostLog = logger('host');

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(host: string): boolean {
  return loopbackHosts.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The URL path decoded, the way the file system will see it; undefined when malformed. */
function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/**
 * Browser mode: serves the built renderer and carries the contract over one WebSocket.
 * The page loads with a one-time link or the login cookie it set (see login.ts), and
 * every WebSocket upgrade needs the cookie and an Origin equal to this host's own origin,
 * so other pages in the same browser (and other users of the machine) can't drive it.
 * Binds loopback only, unless told otherwise — and then only over TLS.
 */
export async function startHost(options: HostOptions): Promise<Host> {
  const bindHost = options.host ?? '127.0.0.1';
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  const tls = options.tls;
  if (!isLoopback(bindHost)) {
    if (options.allowRemote !== true) {
      throw new AppError({
        code: 'invalid-argument',
        message: `Refusing to listen on ${bindHost}: only loopback addresses are allowed by default.`,
        hint: 'Pass allowRemote (--allow-remote) if other machines really should reach this host.',
      });
    }
    if (tls === undefined) {
      throw new AppError({
        code: 'failed-precondition',
        message: `Refusing to listen on ${bindHost} without TLS: the login cookie and every passphrase typed into the page would cross the network in plain text.`,
        hint: '`npm run web -- --host 0.0.0.0 --allow-remote` makes a self-signed certificate for it and prints its fingerprint.',
      });
    }
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

  const scheme = tls === undefined ? 'http' : 'https';
  const limits: RpcLimits = { ...defaultRpcLimits, ...options.limits };
  const maxConnections = options.maxConnections ?? defaultMaxConnections;
  const sockets = new Set<WebSocket>();
  // maxPayload bounds a frame before it is parsed; the RPC bounds what is inside.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
  let origin = '';
  let allowedOrigins = new Set<string>();
  // Made once the port is known (the cookie is named after it); requests come after that.
  let login: BrowserLogin | undefined = undefined;

  /** The Host header must name this server: defeats DNS rebinding. */
  const hostAllowed = (request: IncomingMessage): boolean => {
    const header = request.headers.host;
    if (header === undefined) return false;
    if (isWildcard(bindHost)) return true;
    return allowedOrigins.has(`${scheme}://${header}`);
  };

  const originAllowed = (request: IncomingMessage): boolean => {
    const header = request.headers.origin;
    if (header === undefined) return false;
    const own = `${scheme}://${request.headers.host ?? ''}`;
    if (isWildcard(bindHost)) return header === own;
    return allowedOrigins.has(header) && header === own;
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
    // Decided on the decoded path, as the file system sees it: `/%69ndex.html` is the app.
    const path = decodedPath(url.pathname);
    if (path === undefined) return plain(response, 400, 'Bad request');
    if (path.startsWith(assetsPrefix)) {
      const file = resolveStaticPath(options.staticDir, url.pathname);
      if (file === undefined) return plain(response, 404, 'Not found');
      // Built assets have content hashes in their names: cache them.
      const cache = 'public, max-age=31536000, immutable';
      if (!(await serveFile(request, response, options.staticDir, file, cache))) {
        plain(response, 404, 'Not found');
      }
      return;
    }
    // The app itself (any other path is an app route): with a link or the login cookie.
    const current = login!;
    // Only a GET spends a link: a HEAD (a link preview, a checker) leaves it for the browser.
    const presented = request.method === 'GET' ? url.searchParams.get('token') : null;
    if (presented !== null && current.redeem(presented)) {
      response.setHeader('Set-Cookie', current.setCookie());
    } else if (!current.admits(request)) {
      return plain(
        response,
        presented === null ? 401 : 403,
        presented === null
          ? 'Open the link Porthole printed: it lets this browser in.'
          : 'This link has been used already (each works once) or is not from this Porthole. Ask `npm run web` for a new one: press Enter where it runs.',
      );
    }
    const served = await serveFile(request, response, options.staticDir, indexPath, 'no-store');
    if (!served) plain(response, 500, 'index.html is missing');
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    handleRequest(request, response).catch((error: unknown) => {
      hostLog.error(`Answering ${request.method ?? '?'} ${request.url ?? '/'} failed.`, error);
      if (!response.headersSent) plain(response, 500, 'Internal error');
      else response.destroy();
    });
  };
  const server: Server =
    tls === undefined
      ? createServer(onRequest)
      : createTlsServer({ key: tls.key, cert: tls.cert, minVersion: 'TLSv1.2' }, onRequest);

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, reason: string, text = reason): void => {
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    };
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname !== rpcPath) return refuse(404, 'Not Found');
    if (!hostAllowed(request)) return refuse(421, 'Misdirected Request');
    if (!originAllowed(request)) return refuse(403, 'Forbidden');
    if (!login!.admits(request)) return refuse(401, 'Unauthorized');
    if (sockets.size >= maxConnections) {
      return refuse(
        503,
        'Service Unavailable',
        `Porthole serves at most ${maxConnections} connections at once; close another of its tabs.`,
      );
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      const port = webSocketPort(
        ws,
        options.outgoingBuffer !== undefined ? { buffer: options.outgoingBuffer } : {},
      );
      const serving = serve(port, options.services, options.events, {
        limits,
        onProtocolError: (error) => {
          hostLog.warn('The RPC refused a request from the browser.', error);
          options.onRefused?.(error);
        },
      });
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
  login = new BrowserLogin(port, tls !== undefined);
  origin = `${scheme}://${hostForUrl(isWildcard(bindHost) ? '127.0.0.1' : bindHost)}:${port}`;
  allowedOrigins = new Set(
    isLoopback(bindHost)
      ? [origin, `${scheme}://localhost:${port}`, `${scheme}://127.0.0.1:${port}`]
      : [origin],
  );
  const fingerprint = tls === undefined ? undefined : certificateFingerprint(tls.cert);
  if (!isLoopback(bindHost)) {
    warn(
      `WARNING: Porthole is listening on ${bindHost}, reachable from other machines. ` +
        'Anyone who opens one of its links first controls the container runtimes this host can reach. ' +
        `Its certificate's SHA-256 fingerprint is ${fingerprint ?? '?'}: check it when the browser asks.`,
    );
  }
  const opened = login;
  return {
    origin,
    port,
    issueUrl: (onUsed) => `${origin}/?token=${opened.issue(onUsed)}`,
    loginCookie: opened.cookie,
    ...(fingerprint !== undefined && { tlsFingerprint: fingerprint }),
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
