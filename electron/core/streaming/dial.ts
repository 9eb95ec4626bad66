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
