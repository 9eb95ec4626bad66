/**
 * Opens a WebSocket to a CRI stream URL through a Dialer (direct TCP, or a channel through
 * an SSH tunnel), with TLS layered on top for https stream URLs. Every failure is an
 * UpgradeError (as the SPDY layer's): with the HTTP `status` when the server answered
 * something other than 101, without one when it could not be reached, TLS failed, the
 * deadline passed or the caller cancelled.
 */
import type { IncomingMessage } from 'node:http';
import type { createConnection } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { AppError } from '../../../../../shared/errors';
import {
  abortable,
  connectTls,
  describeError,
  describeTlsFailure,
  directDialer,
  readRefusalBody,
  type Dialer,
  type StreamTlsOptions,
} from '../dial';
import { guardIncompleteFrames } from './frame-guard';
import { upgradeFailure, upgradeRefused } from './upgrade-error';

export type { StreamTlsOptions } from '../dial';

export interface WebSocketConnectOptions {
  readonly url: string;
  /** Subprotocols in preference order; sent as one Sec-WebSocket-Protocol header. */
  readonly protocols: readonly string[];
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /**
   * Bound on dial + TLS + HTTP upgrade, and on a frame that stalls half-way once the
   * socket is open (see frame-guard.ts).
   */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Largest message accepted from the server (bounds memory per message). */
  readonly maxPayload?: number;
}

export const defaultUpgradeTimeoutMs = 10_000;
/** The server's messages are small (it copies in 32 KiB reads); anything huge is hostile. */
const defaultMaxPayload = 32 * 1024 * 1024 + 1;
interface Endpoint {
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  readonly wsUrl: string;
}

export async function connectWebSocket(options: WebSocketConnectOptions): Promise<WebSocket> {
  const offered = options.protocols;
  const fail = (
    code: Parameters<typeof upgradeFailure>[0],
    message: string,
    extra?: Parameters<typeof upgradeFailure>[3],
  ): AppError => upgradeFailure(code, message, offered, extra);
  const endpoint = parseStreamUrl(options.url, fail);
  const timeoutMs = options.timeoutMs ?? defaultUpgradeTimeoutMs;

  // One controller for the attempt: the deadline and the caller's signal both abort it,
  // with the reason as an AppError, and every step in flight listens to it.
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        fail(
          'deadline-exceeded',
          `The stream server did not complete the WebSocket upgrade within ${timeoutMs} ms.`,
          { detail: options.url },
        ),
      ),
    timeoutMs,
  );
  const onCallerAbort = (): void =>
    controller.abort(fail('cancelled', 'Opening the stream was cancelled.'));
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) onCallerAbort();
  const signal = controller.signal;

  const opened: Duplex[] = [];
  try {
    const raw = await abortable(
      (options.dialer ?? directDialer)(endpoint.host, endpoint.port, signal),
      signal,
      (late) => late.destroy(),
    ).catch((error: unknown) => {
      if (signal.aborted) throw reason(signal);
      throw fail(
        'unavailable',
        `Could not reach the stream server at ${endpoint.host}:${endpoint.port}.`,
        {
          detail: describeError(error),
          hint: 'The runtime may have stopped, or its stream server address is not reachable from here.',
          cause: error,
        },
      );
    });
    opened.push(raw);
    let socket = raw;
    if (endpoint.secure) {
      socket = await connectTls(raw, endpoint.host, options.tls, signal).catch((error: unknown) => {
        if (signal.aborted) throw reason(signal);
        const failure = describeTlsFailure(error as Error);
        throw fail(failure.code, failure.message, { ...failure, cause: error });
      });
      opened.push(socket);
    }
    return await upgrade(socket, endpoint, options, signal, fail);
  } catch (error) {
    for (const stream of opened) stream.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

type Fail = (
  code: Parameters<typeof upgradeFailure>[0],
  message: string,
  extra?: Parameters<typeof upgradeFailure>[3],
) => AppError;

function parseStreamUrl(url: string, fail: Fail): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail('invalid-argument', 'The stream URL is not valid.', { detail: url });
  }
  const scheme = parsed.protocol;
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(scheme)) {
    throw fail('invalid-argument', `The stream URL has an unsupported scheme (${scheme}).`, {
      detail: url,
    });
  }
  const secure = scheme === 'https:' || scheme === 'wss:';
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = parsed.port !== '' ? Number(parsed.port) : secure ? 443 : 80;
  parsed.protocol = secure ? 'wss:' : 'ws:';
  return { secure, host, port, wsUrl: parsed.href };
}

/** Why the attempt was aborted: the AppError we aborted with (deadline or caller). */
function reason(signal: AbortSignal): AppError {
  const value: unknown = signal.reason;
  return value instanceof AppError
    ? value
    : new AppError({ code: 'cancelled', message: 'Opening the stream was cancelled.' });
}

function upgrade(
  socket: Duplex,
  endpoint: Endpoint,
  options: WebSocketConnectOptions,
  signal: AbortSignal,
  fail: Fail,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    // ws asks for a connection synchronously; ours is already dialled (the Dialer is
    // async), so hand it over. ws and node:http cope with a plain Duplex (an SSH channel).
    const handOver = (() => socket) as unknown as typeof createConnection;
    const ws = new WebSocket(endpoint.wsUrl, [...options.protocols], {
      createConnection: handOver,
      // The CRI stream server does not negotiate compression; don't offer it.
      perMessageDeflate: false,
      followRedirects: false,
      maxPayload: options.maxPayload ?? defaultMaxPayload,
      // Base64 frames are ASCII and binary frames are not validated anyway.
      skipUTF8Validation: true,
    });
    let settled = false;
    const settle = (error: AppError | undefined): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      ws.off('open', onOpen);
      ws.off('unexpected-response', onUnexpected);
      if (error === undefined) {
        ws.off('error', onError);
        ws.off('close', onClose);
        // Until the caller attaches its own listener, an 'error' must not crash the process
        // (the caller learns of it from 'close').
        ws.on('error', () => undefined);
        resolve(ws);
      } else {
        // A late 'error' from terminate() must not become an unhandled event.
        ws.on('error', () => undefined);
        ws.terminate();
        socket.destroy();
        reject(error);
      }
    };
    const onAbort = (): void => settle(reason(signal));
    const onOpen = (): void => {
      if (!options.protocols.includes(ws.protocol)) {
        settle(
          fail(
            'failed-precondition',
            'The stream server accepted the WebSocket but chose none of the offered protocols.',
            {
              status: 101,
              detail: `offered ${options.protocols.join(', ')}; got "${ws.protocol}"`,
            },
          ),
        );
        return;
      }
      // Hold incoming messages until the caller has attached its listeners: the server
      // writes right after the upgrade (often in the same packet as the 101), and its
      // status and close may follow before our promise continuation runs.
      ws.pause();
      guardIncompleteFrames(ws, socket, options.timeoutMs ?? defaultUpgradeTimeoutMs);
      settle(undefined);
    };
    const onUnexpected = (_request: unknown, response: IncomingMessage): void => {
      const status = response.statusCode ?? 0;
      void readRefusalBody(response).then((body) =>
        settle(upgradeRefused(status, body, options.protocols)),
      );
    };
    const onError = (error: Error): void => {
      if (signal.aborted) {
        settle(reason(signal));
        return;
      }
      // ws checks the 101 itself: a subprotocol we did not offer, or none, is a refusal
      // of everything offered (as a 403 would be), not a network failure.
      if (/subprotocol/i.test(error.message)) {
        settle(
          fail(
            'failed-precondition',
            'The stream server switched to WebSocket with none of the offered protocols.',
            {
              status: 101,
              detail: error.message,
            },
          ),
        );
        return;
      }
      settle(
        fail('unavailable', 'The WebSocket upgrade with the stream server failed.', {
          detail: describeError(error),
          cause: error,
        }),
      );
    };
    const onClose = (): void =>
      settle(
        fail(
          'unavailable',
          'The stream server closed the connection during the WebSocket upgrade.',
          {
            detail: options.url,
          },
        ),
      );
    signal.addEventListener('abort', onAbort, { once: true });
    ws.once('open', onOpen);
    ws.on('unexpected-response', onUnexpected);
    ws.on('error', onError);
    ws.once('close', onClose);
  });
}
