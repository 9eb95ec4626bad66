/**
 * The HTTP upgrade to a CRI stream URL, as one skeleton for every transport: parse the URL,
 * bound the whole attempt by one deadline and the caller's signal, dial (TCP from here, or a
 * channel through an SSH tunnel), add TLS for https, and hand the connection to the
 * transport, which makes its own HTTP exchange on it (SPDY: a POST that switches to
 * SPDY/3.1; WebSocket: ws's GET). Whatever fails is an UpgradeError, and a refused upgrade
 * (an HTTP answer other than 101) maps to one error per status, whichever transport asked.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { logger } from '../log';
import { AppError, type AppErrorData, type ErrorCode } from '../../../../shared/errors';
import {
  abortable,
  connectTls,
  describeError,
  describeTlsFailure,
  directDialer,
  type Dialer,
  type StreamTlsOptions,
} from './dial';

export interface UpgradeErrorData extends AppErrorData {
  /** The HTTP status of the answer; undefined when no answer came (network, TLS, timeout). */
  readonly status: number | undefined;
  /** The answer's body (the runtime's own words), possibly truncated; '' when none. */
  readonly body: string;
  /** The protocols we offered (X-Stream-Protocol-Version or Sec-WebSocket-Protocol). */
  readonly offered: readonly string[];
}

/**
 * The upgrade of a stream URL failed: nothing was streamed. Stream URLs are single use, so
 * a caller that falls back to the other transport must ask the runtime for a new URL first.
 */
export class UpgradeError extends AppError {
  readonly status: number | undefined;
  readonly body: string;
  readonly offered: readonly string[];

  constructor(data: UpgradeErrorData, options?: { cause?: unknown }) {
    super(data, options);
    this.name = 'UpgradeError';
    this.status = data.status;
    this.body = data.body;
    this.offered = data.offered;
  }
}

/** True when the upgrade itself failed (no session was established). */
export function isUpgradeFailure(error: unknown): error is UpgradeError {
  return error instanceof UpgradeError;
}

/** The server answered the upgrade, and not with a working switch (403, 404, 400, a bad 101…). */
export function isRefusedUpgrade(error: unknown): error is UpgradeError {
  return isUpgradeFailure(error) && error.status !== undefined;
}

/** The transport's name, as the user reads it in messages. */
export type UpgradeTransport = 'SPDY' | 'WebSocket';

export interface UpgradeOptions {
  /** The stream URL from Exec/Attach/PortForward: http:// or https://. Single use. */
  readonly url: string;
  /** The protocols offered, most preferred first. */
  readonly protocols: readonly string[];
  /** How to reach host:port (default: TCP from here; over SSH: a tunnel). */
  readonly dialer?: Dialer;
  /** For https:// URLs. Default: verify against the system CAs. */
  readonly tls?: StreamTlsOptions;
  /** The whole upgrade: dial, TLS and HTTP (default 10 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export const DEFAULT_UPGRADE_TIMEOUT_MS = 10_000;

/** Where a stream URL points. */
export interface StreamTarget {
  readonly secure: boolean;
  /** For dialing and TLS: no brackets around an IPv6 address. */
  readonly host: string;
  readonly port: number;
  /** Path and query, as the request line carries them. */
  readonly path: string;
  /** `host[:port]` as the Host header carries it (brackets kept). */
  readonly hostHeader: string;
}

export interface UpgradeFailureExtra {
  readonly status?: number;
  readonly body?: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly cause?: unknown;
}

/** What a transport's HTTP exchange gets from the skeleton. */
export interface UpgradeContext {
  /** The connection to talk HTTP on: TLS over `raw` for https, else `raw`. */
  readonly socket: Duplex;
  /** The dialled connection. */
  readonly raw: Duplex;
  readonly target: StreamTarget;
  readonly url: string;
  readonly protocols: readonly string[];
  /** The bound the caller set on the upgrade. */
  readonly timeoutMs: number;
  /** Aborted at the deadline or by the caller: then settle with `aborted()`. */
  readonly signal: AbortSignal;
  aborted(): AppError;
  fail(code: ErrorCode, message: string, extra?: UpgradeFailureExtra): UpgradeError;
  /** The server answered something other than 101: read a little of the body, and map it. */
  refused(response: IncomingMessage): Promise<UpgradeError>;
  /** A 101 that is not the switch we asked for (another protocol, none, a wrong Upgrade). */
  badSwitch(message: string, detail?: string): UpgradeError;
}

/**
 * Dials `options.url` and runs the transport's `exchange` on the connection, all within
 * `timeoutMs` and `signal`. The connection is destroyed unless `exchange` succeeds. Throws
 * UpgradeError: 'invalid-argument' for a bad URL or protocol list, a code per status for a
 * refusal (see `refusal`), 'permission-denied' for an untrusted certificate, 'unavailable'
 * when the server can't be reached, 'deadline-exceeded', or 'cancelled'.
 */
export async function upgradeStream<T>(
  options: UpgradeOptions,
  transport: UpgradeTransport,
  exchange: (context: UpgradeContext) => Promise<T>,
): Promise<T> {
  const offered = options.protocols;
  const fail = (code: ErrorCode, message: string, extra: UpgradeFailureExtra = {}): UpgradeError =>
    upgradeError(code, message, offered, extra);
  const target = parseStreamUrl(options.url, offered);
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPGRADE_TIMEOUT_MS;

  // One controller for the attempt: the deadline and the caller's signal both abort it, with
  // the reason as an AppError, and every step in flight (dial, TLS, HTTP) listens to it.
  const controller = new AbortController();
  const { signal } = controller;
  const timer = setTimeout(
    () =>
      controller.abort(
        fail(
          'deadline-exceeded',
          `The stream server did not complete the ${transport} upgrade within ${timeoutMs} ms.`,
          { detail: options.url },
        ),
      ),
    timeoutMs,
  );
  const cancelled = (): UpgradeError => fail('cancelled', 'Opening the stream was cancelled.');
  const onCallerAbort = (): void => controller.abort(cancelled());
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) onCallerAbort();
  // Why the attempt was aborted: the error it was aborted with (deadline or caller).
  const aborted = (): AppError => {
    const reason: unknown = signal.reason;
    return reason instanceof AppError ? reason : cancelled();
  };

  const opened: Duplex[] = [];
  try {
    const raw = await abortable(
      (options.dialer ?? directDialer)(target.host, target.port, signal),
      signal,
      (late) => late.destroy(),
    ).catch((error: unknown) => {
      if (signal.aborted) throw aborted();
      throw fail(
        'unavailable',
        `Could not reach the runtime's stream server at ${target.host}:${target.port}.`,
        {
          detail: describeError(error),
          hint: 'The runtime may have stopped, or its stream server address is not reachable from here.',
          cause: error,
        },
      );
    });
    opened.push(raw);
    // An error on the raw connection must never go unhandled while the rest is set up.
    raw.on('error', ignoreError);
    let socket = raw;
    if (target.secure) {
      socket = await connectTls(raw, target.host, options.tls, signal).catch((error: unknown) => {
        if (signal.aborted) throw aborted();
        const failure = describeTlsFailure(error as Error);
        throw fail(failure.code, failure.message, { ...failure, cause: error });
      });
      opened.push(socket);
    }
    const result = await exchange({
      socket,
      raw,
      target,
      url: options.url,
      protocols: offered,
      timeoutMs,
      signal,
      aborted,
      fail,
      refused: async (response) =>
        refusal(transport, response.statusCode ?? 0, await readRefusalBody(response), offered),
      badSwitch: (message, detail) =>
        fail('protocol-error', message, {
          status: 101,
          ...(detail !== undefined && { detail }),
        }),
    });
    raw.off('error', ignoreError);
    return result;
  } catch (error) {
    for (const stream of opened) stream.destroy();
    if (error instanceof UpgradeError) throw error;
    if (signal.aborted) throw aborted();
    throw fail('unavailable', "The runtime's stream server closed the connection.", {
      detail: describeError(error),
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

function upgradeError(
  code: ErrorCode,
  message: string,
  offered: readonly string[],
  extra: UpgradeFailureExtra,
): UpgradeError {
  return new UpgradeError(
    {
      code,
      message,
      status: extra.status,
      body: extra.body ?? '',
      offered,
      ...(extra.detail !== undefined && { detail: extra.detail }),
      ...(extra.hint !== undefined && { hint: extra.hint }),
    },
    { cause: extra.cause },
  );
}

/** A protocol name as both headers allow it (an HTTP token: no commas, no spaces). */
const PROTOCOL_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses a stream URL (http or https, as the CRI hands them out) and checks the offers. */
export function parseStreamUrl(url: string, offered: readonly string[]): StreamTarget {
  const invalid = (message: string): UpgradeError =>
    upgradeError('invalid-argument', message, offered, { detail: url });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`Invalid stream URL ${JSON.stringify(url)}.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid(`Unsupported stream URL scheme ${parsed.protocol} (expected http or https).`);
  }
  if (offered.length === 0) throw invalid('No stream protocol offered.');
  for (const protocol of offered) {
    if (!PROTOCOL_TOKEN.test(protocol)) {
      throw invalid(`Invalid stream protocol ${JSON.stringify(protocol)}.`);
    }
  }
  const secure = parsed.protocol === 'https:';
  return {
    secure,
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port),
    path: `${parsed.pathname}${parsed.search}`,
    hostHeader: parsed.host,
  };
}

/**
 * A non-101 answer as an error, with the server's words as detail. Every such answer is a
 * refusal (it carries a status, so `isRefusedUpgrade` holds and a caller may fall back):
 * the server spoke HTTP correctly and declined to switch. That includes a 3xx: we never
 * follow redirects (the token is single use, and a stream server has no reason to send
 * one), so it means "not served here", as a 400 does — `failed-precondition`, never
 * `protocol-error`, which stays for a peer that breaks a protocol (garbage, a bad switch).
 */
export function refusal(
  transport: UpgradeTransport,
  status: number,
  body: string,
  offered: readonly string[],
): UpgradeError {
  const text = body.trim();
  const extra = { status, body: text, detail: `HTTP ${status}${text !== '' ? `: ${text}` : ''}` };
  const fail = (code: ErrorCode, message: string, more: { hint?: string } = {}): UpgradeError =>
    upgradeError(code, message, offered, { ...extra, ...more });
  const list = offered.join(', ');
  switch (status) {
    case 404:
      return fail('not-found', 'The stream URL has expired or was already used.', {
        hint: 'Stream URLs are single use and valid for one minute: start the session again to get a new one.',
      });
    case 403:
      return fail(
        'failed-precondition',
        `The runtime supports none of the offered ${transport} protocols (${list}).`,
      );
    case 400:
      return fail(
        'failed-precondition',
        `The runtime rejected the ${transport} upgrade (offered protocols: ${list}).`,
      );
    case 401:
      return fail('unauthenticated', 'The runtime refused the stream: not authenticated.');
    default:
      if (status >= 500) {
        return fail('unavailable', `The runtime's stream server failed (HTTP ${status}).`);
      }
      return fail(
        'failed-precondition',
        `The runtime's stream server answered HTTP ${status} instead of switching to ${transport}.`,
      );
  }
}

/** How much of a refused upgrade's body to keep, and how long to wait for it. */
const maxRefusalBody = 4096;
const refusalBodyTimeoutMs = 2000;

/**
 * Reads a bounded prefix of a refused upgrade's body (the runtime's reason, for the user);
 * never waits long for it, and always releases the response.
 */
export function readRefusalBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      clearTimeout(timer);
      response.removeAllListeners('data');
      response.destroy();
      resolve(Buffer.concat(chunks).toString('utf8').slice(0, maxRefusalBody));
    };
    const timer = setTimeout(finish, refusalBodyTimeoutMs);
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxRefusalBody) finish();
    });
    response.once('end', finish);
    response.once('error', finish);
    response.once('close', finish);
  });
}

/** Errors before the transport owns the connection surface through the step that failed. */
const ignoreError = logger('streaming').failure('The upgrade socket failed');
