import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, type ErrorCode } from '../../../../../shared/errors';
import {
  abortable,
  connectTls,
  describeError,
  describeTlsFailure,
  directDialer,
  type Dialer,
  type StreamTlsOptions,
} from '../dial';
import { UpgradeError } from './errors';
import { SpdySessionImpl, type SpdySession } from './session';

export const SPDY_UPGRADE_PROTOCOL = 'SPDY/3.1';
export const STREAM_PROTOCOL_HEADER = 'X-Stream-Protocol-Version';
export const DEFAULT_UPGRADE_TIMEOUT_MS = 10_000;
/** Error bodies are a line of text; keep at most this much of one. */
const MAX_ERROR_BODY = 64 * 1024;

/** TLS settings for https stream URLs; the same for every transport. */
export type TlsOptions = StreamTlsOptions;

export interface UpgradeOptions {
  /** The stream URL from Exec/Attach/PortForward: http:// or https://. Single use. */
  readonly url: string;
  /** X-Stream-Protocol-Version offers, most preferred first. */
  readonly protocols: readonly string[];
  /** How to reach host:port (default: TCP from here; over SSH: a tunnel). */
  readonly dialer?: Dialer;
  /** For https:// URLs. Default: verify against the system CAs. */
  readonly tls?: TlsOptions;
  /** The whole upgrade: dial, TLS and HTTP (default 10 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** SYN_REPLY timeout of the session's createStream (default 30 s). */
  readonly streamTimeoutMs?: number;
}

/**
 * Connects to a CRI stream URL and upgrades the connection to SPDY/3.1, as client-go's
 * SPDY round tripper does: `POST` with `Connection: Upgrade`, `Upgrade: SPDY/3.1` and one
 * `X-Stream-Protocol-Version` line per offered protocol (the runtime reads every line and
 * picks the first it supports). Throws UpgradeError: 'not-found' for an expired or used URL,
 * 'failed-precondition' for no common protocol, 'permission-denied' for an untrusted
 * certificate, 'unavailable' when the server can't be reached, 'deadline-exceeded' on
 * timeout, 'cancelled' when `signal` aborts.
 */
export async function upgradeToSpdy(options: UpgradeOptions): Promise<SpdySession> {
  const target = parseTarget(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPGRADE_TIMEOUT_MS;
  const fail = (
    code: ErrorCode,
    message: string,
    extra: Partial<FailureExtra> = {},
  ): UpgradeError =>
    new UpgradeError(
      {
        code,
        message,
        status: extra.status,
        body: extra.body ?? '',
        offered: options.protocols,
        ...(extra.detail !== undefined && { detail: extra.detail }),
        ...(extra.hint !== undefined && { hint: extra.hint }),
      },
      { cause: extra.cause },
    );

  // One controller for the whole attempt: the deadline and the caller's signal both abort
  // it, and everything in flight (dial, TLS, HTTP) listens to it.
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(
      fail('deadline-exceeded', `The stream upgrade did not complete within ${timeoutMs} ms.`, {
        detail: options.url,
      }),
    );
  }, timeoutMs);
  const onCallerAbort = (): void => {
    controller.abort(fail('cancelled', 'The stream upgrade was cancelled.'));
  };
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) onCallerAbort();

  const opened: Duplex[] = [];
  try {
    const raw = await abortable(
      (options.dialer ?? directDialer)(target.host, target.port, controller.signal),
      controller.signal,
      (late) => late.destroy(),
    ).catch((error: unknown) => {
      throw controller.signal.aborted ? abortReason(controller.signal) : connectFailure(error);
    });
    opened.push(raw);
    // An error on the raw connection must never go unhandled while we set up the rest.
    raw.on('error', ignoreError);

    let socket: Duplex = raw;
    if (target.secure) {
      const tlsSocket = await connectTls(
        raw,
        target.hostname,
        options.tls,
        controller.signal,
      ).catch((error: unknown) => {
        if (controller.signal.aborted) throw abortReason(controller.signal);
        const failure = describeTlsFailure(error as Error);
        throw fail(failure.code, failure.message, { ...failure, cause: error });
      });
      opened.push(tlsSocket);
      socket = tlsSocket;
    }
    const session = await exchange(socket, raw, target, options, controller.signal);
    raw.off('error', ignoreError);
    return session;
  } catch (error) {
    for (const stream of opened) stream.destroy();
    if (error instanceof UpgradeError) throw error;
    if (controller.signal.aborted) throw abortReason(controller.signal);
    throw fail('unavailable', "Could not reach the runtime's stream server.", {
      detail: describeError(error),
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }

  // ---- steps, closing over `options` and `fail` ------------------------------------------

  function connectFailure(error: unknown): UpgradeError {
    return fail('unavailable', "Could not connect to the runtime's stream server.", {
      detail: `${target.host}:${target.port}: ${describeError(error)}`,
      hint: 'The runtime may have stopped, or its stream server address is not reachable from here.',
      cause: error,
    });
  }

  function exchange(
    socket: Duplex,
    raw: Duplex,
    where: Target,
    opts: UpgradeOptions,
    signal: AbortSignal,
  ): Promise<SpdySession> {
    return new Promise<SpdySession>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        outcome();
      };
      const req = request({
        method: 'POST',
        host: where.hostname,
        port: where.port,
        path: where.path,
        setHost: false,
        headers: {
          Host: where.hostHeader,
          Connection: 'Upgrade',
          Upgrade: SPDY_UPGRADE_PROTOCOL,
          [STREAM_PROTOCOL_HEADER]: [...opts.protocols],
          'Content-Length': '0',
        },
        // Our own connection (dialled, maybe tunnelled, maybe TLS): Node's HTTP client runs
        // on any Duplex.
        createConnection: () => socket,
      });
      const onAbort = (): void => {
        settle(() => reject(abortReason(signal)));
        req.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });

      req.on('error', (error: Error) => {
        settle(() =>
          reject(
            fail('unavailable', "The runtime's stream server closed the connection.", {
              detail: describeError(error),
              cause: error,
            }),
          ),
        );
      });
      req.on('upgrade', (response: IncomingMessage, upgraded: Duplex, head: Buffer) => {
        const problem = checkSwitch(response, opts.protocols);
        if (problem !== undefined) {
          upgraded.destroy();
          settle(() => reject(fail('protocol-error', problem, { status: response.statusCode })));
          return;
        }
        const header = response.headers[STREAM_PROTOCOL_HEADER.toLowerCase()];
        const protocol = (Array.isArray(header) ? header[0] : header) ?? '';
        settle(() =>
          resolve(
            new SpdySessionImpl(upgraded, {
              protocol,
              head,
              ...(upgraded !== raw && { underlying: raw }),
              ...(opts.streamTimeoutMs !== undefined && { streamTimeoutMs: opts.streamTimeoutMs }),
              // The bound the caller set on the upgrade also bounds a frame that stalls.
              frameTimeoutMs: timeoutMs,
            }),
          ),
        );
      });
      req.on('response', (response: IncomingMessage) => {
        // Not upgraded: the body is the runtime's explanation. Read some, then give up.
        const chunks: Buffer[] = [];
        let length = 0;
        const finish = (): void => {
          const body = Buffer.concat(chunks).toString('utf8').trim();
          settle(() => reject(statusFailure(response.statusCode ?? 0, body)));
          req.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (length >= MAX_ERROR_BODY) return;
          chunks.push(chunk.subarray(0, MAX_ERROR_BODY - length));
          length += Math.min(chunk.length, MAX_ERROR_BODY - length);
          if (length >= MAX_ERROR_BODY) finish();
        });
        response.on('end', finish);
        response.on('error', finish);
        response.on('aborted', finish);
      });
      req.end();
    });
  }

  function statusFailure(status: number, body: string): UpgradeError {
    const offered = options.protocols.join(', ');
    const extra = { status, body, detail: `HTTP ${status}${body ? `: ${body}` : ''}` };
    switch (status) {
      case 404:
        return fail('not-found', 'The stream URL has expired or was already used.', {
          ...extra,
          hint:
            'Stream URLs are single use and valid for one minute: start the session again ' +
            'to get a new one.',
        });
      case 403:
        return fail(
          'failed-precondition',
          `The runtime supports none of the offered stream protocols (${offered}).`,
          extra,
        );
      case 400:
        return fail(
          'failed-precondition',
          `The runtime rejected the stream upgrade (offered protocols: ${offered}).`,
          extra,
        );
      case 401:
        return fail('unauthenticated', 'The runtime refused the stream: not authenticated.', extra);
      default:
        if (status >= 500) {
          return fail('unavailable', `The runtime's stream server failed (HTTP ${status}).`, extra);
        }
        return fail(
          status >= 400 ? 'failed-precondition' : 'protocol-error',
          `The runtime's stream server answered HTTP ${status} instead of switching to SPDY.`,
          extra,
        );
    }
  }
}

interface FailureExtra {
  readonly status: number | undefined;
  readonly body: string;
  readonly detail: string;
  readonly hint: string;
  readonly cause: unknown;
}

interface Target {
  readonly secure: boolean;
  /** For dialing: no brackets around IPv6. */
  readonly host: string;
  readonly hostname: string;
  readonly port: number;
  readonly path: string;
  readonly hostHeader: string;
}

function parseTarget(options: UpgradeOptions): Target {
  const invalid = (message: string): UpgradeError =>
    new UpgradeError({
      code: 'invalid-argument',
      message,
      status: undefined,
      body: '',
      offered: options.protocols,
    });
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw invalid(`Invalid stream URL ${JSON.stringify(options.url)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`Unsupported stream URL scheme ${url.protocol} (expected http or https).`);
  }
  if (options.protocols.length === 0) throw invalid('No stream protocol offered.');
  for (const protocol of options.protocols) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(protocol)) {
      throw invalid(`Invalid stream protocol ${JSON.stringify(protocol)}.`);
    }
  }
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    secure,
    host: hostname,
    hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    hostHeader: url.host,
  };
}

/** A 101 that is not a switch to SPDY/3.1 with one of our protocols: why, or undefined. */
function checkSwitch(response: IncomingMessage, offered: readonly string[]): string | undefined {
  if (response.statusCode !== 101) {
    return `The runtime answered HTTP ${response.statusCode} to the upgrade.`;
  }
  const upgrade = response.headers.upgrade ?? '';
  if (upgrade.toLowerCase() !== SPDY_UPGRADE_PROTOCOL.toLowerCase()) {
    return `The runtime switched to ${JSON.stringify(upgrade)} instead of ${SPDY_UPGRADE_PROTOCOL}.`;
  }
  const header = response.headers[STREAM_PROTOCOL_HEADER.toLowerCase()];
  const protocol = Array.isArray(header) ? header[0] : header;
  if (protocol !== undefined && protocol !== '' && !offered.includes(protocol)) {
    return `The runtime chose the stream protocol ${JSON.stringify(protocol)}, which was not offered.`;
  }
  return undefined;
}

function ignoreError(): void {
  // Errors before the session owns the socket surface through the step that failed.
}

function abortReason(signal: AbortSignal): AppError {
  const reason: unknown = signal.reason;
  return reason instanceof AppError
    ? reason
    : new AppError({ code: 'cancelled', message: 'The stream upgrade was cancelled.' });
}
