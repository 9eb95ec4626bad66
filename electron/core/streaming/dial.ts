import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

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
