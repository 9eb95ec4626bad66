import { connect, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

/**
 * Opens a raw byte stream to `host:port` as the node sees it. Locally that is a TCP
 * connection; for a node reached over SSH it is a direct-tcpip channel through the
 * tunnel, because stream URLs point at the node's own loopback. TLS (https stream URLs)
 * is layered on top by the transport, so it works the same over both.
 */
export type Dialer = (host: string, port: number, signal?: AbortSignal) => Promise<Duplex>;

/** Dials TCP directly from this machine. */
export const directDialer: Dialer = (host, port, signal) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true, ...(signal && { signal }) });
    const onError = (error: Error): void => reject(error);
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });

/**
 * TLS settings for https stream URLs, for every transport (containerd's
 * `enable_tls_streaming` serves a self-signed certificate).
 */
export interface StreamTlsOptions {
  /** False accepts any certificate (the node's stream server is self-signed by default). */
  readonly rejectUnauthorized: boolean;
  /** A CA (PEM) to trust for the stream server's certificate. */
  readonly ca?: string | Buffer;
  /** SNI and the name checked against the certificate; default the URL's host name. */
  readonly servername?: string;
}

/** `CODE: message` for an errno-style error, the message otherwise. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** Certificate verification failures (OpenSSL's codes and Node's host name check). */
const certificateErrors: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What a failed TLS handshake means for the user, for the transport's own error type. */
export interface TlsFailure {
  readonly code: 'permission-denied' | 'unavailable';
  readonly message: string;
  readonly detail: string;
  readonly hint?: string;
}

export function describeTlsFailure(error: Error): TlsFailure {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (certificateErrors.has(code)) {
    return {
      code: 'permission-denied',
      message: "The runtime's stream server presented a certificate that is not trusted.",
      detail: describeError(error),
      hint:
        "containerd's TLS streaming (enable_tls_streaming) uses a self-signed certificate. " +
        "Provide its CA in the node's settings, or allow the stream server's self-signed " +
        'certificate there.',
    };
  }
  return {
    code: 'unavailable',
    message: "The TLS handshake with the runtime's stream server failed.",
    detail: describeError(error),
  };
}

/**
 * TLS on top of whatever the dialer returned (a TCP socket or an SSH channel). Rejects with
 * the handshake's Error (see describeTlsFailure), or with `signal.reason` when aborted.
 */
export function connectTls(
  raw: Duplex,
  hostname: string,
  tls: StreamTlsOptions | undefined,
  signal: AbortSignal,
): Promise<TLSSocket> {
  const servername = tls?.servername ?? (isIP(hostname) === 0 ? hostname : undefined);
  const socket = tlsConnect({
    socket: raw,
    host: tls?.servername ?? hostname,
    ...(servername !== undefined && { servername }),
    rejectUnauthorized: tls?.rejectUnauthorized ?? true,
    ...(tls?.ca !== undefined && { ca: tls.ca }),
  });
  return new Promise<TLSSocket>((resolve, reject) => {
    const cleanup = (): void => {
      socket.off('secureConnect', onConnect);
      socket.off('error', onError);
      raw.off('error', onError);
      raw.off('close', onRawClose);
      signal.removeEventListener('abort', onAbort);
    };
    const onConnect = (): void => {
      cleanup();
      resolve(socket);
    };
    const onError = (error: Error): void => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    // A tunnelled Duplex may just close instead of failing the TLS socket: fail fast.
    const onRawClose = (): void =>
      onError(
        Object.assign(new Error('The connection closed during the TLS handshake.'), {
          code: 'ECONNRESET',
        }),
      );
    const onAbort = (): void => {
      cleanup();
      socket.destroy();
      reject(signal.reason as Error);
    };
    socket.on('secureConnect', onConnect);
    socket.on('error', onError);
    raw.on('error', onError);
    raw.on('close', onRawClose);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Races `promise` with `signal`: rejects with `signal.reason` on abort; a value that arrives
 * after the abort goes to `onLate` (so a late socket is closed, not leaked).
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  onLate: (value: T) => void,
): Promise<T> {
  if (signal.aborted) {
    promise.then(onLate, () => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) onLate(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
