/**
 * The WebSocket side of the upgrade (../upgrade.ts has the skeleton: deadline, abort, dial,
 * TLS, refusals): ws's handshake on the dialled connection. Every failure is the same
 * UpgradeError the SPDY upgrade throws, so fallback logic treats both alike.
 */
import type { IncomingMessage } from 'node:http';
import type { createConnection } from 'node:net';
import WebSocket from 'ws';
import type { AppError } from '../../../../../shared/errors';
import { describeError } from '../dial';
import { upgradeStream, type UpgradeContext, type UpgradeOptions } from '../upgrade';
import { guardIncompleteFrames } from './frame-guard';

export interface WebSocketConnectOptions extends UpgradeOptions {
  /** Largest message accepted from the server (bounds memory per message). */
  readonly maxPayload?: number;
}

/** The server's messages are small (it copies in 32 KiB reads); anything huge is hostile. */
const defaultMaxPayload = 32 * 1024 * 1024 + 1;

/**
 * Opens a WebSocket to a CRI stream URL, with the offered subprotocols in one
 * Sec-WebSocket-Protocol header. The socket is handed over paused (see below); a frame that
 * stalls half-way once it is open fails it within `timeoutMs` (see frame-guard.ts).
 */
export function connectWebSocket(options: WebSocketConnectOptions): Promise<WebSocket> {
  return upgradeStream(options, 'WebSocket', (context) => handshake(context, options));
}

function handshake(context: UpgradeContext, options: WebSocketConnectOptions): Promise<WebSocket> {
  const { socket, target, signal, protocols } = context;
  return new Promise((resolve, reject) => {
    // ws asks for a connection synchronously; ours is already dialled (the Dialer is
    // async), so hand it over. ws and node:http cope with a plain Duplex (an SSH channel).
    const handOver = (() => socket) as unknown as typeof createConnection;
    const scheme = target.secure ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${target.hostHeader}${target.path}`, [...protocols], {
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
      ws.off('error', onError);
      ws.off('close', onClose);
      // Until the caller attaches its own listener (and after terminate(), which may still
      // report one), an 'error' must not crash the process: the caller learns of it by 'close'.
      ws.on('error', () => undefined);
      if (error === undefined) {
        resolve(ws);
      } else {
        ws.terminate();
        socket.destroy();
        reject(error);
      }
    };
    const onAbort = (): void => settle(context.aborted());
    const onOpen = (): void => {
      if (!protocols.includes(ws.protocol)) {
        settle(
          context.badSwitch(
            'The stream server switched to WebSocket with none of the offered protocols.',
            `offered ${protocols.join(', ')}; got "${ws.protocol}"`,
          ),
        );
        return;
      }
      // Hold incoming messages until the caller has attached its listeners: the server
      // writes right after the upgrade (often in the same packet as the 101), and its
      // status and close may follow before our promise continuation runs.
      ws.pause();
      guardIncompleteFrames(ws, socket, context.timeoutMs);
      settle(undefined);
    };
    const onUnexpected = (_request: unknown, response: IncomingMessage): void => {
      void context.refused(response).then(settle);
    };
    const onError = (error: Error): void => {
      if (signal.aborted) {
        settle(context.aborted());
        return;
      }
      // ws checks the 101 itself: a subprotocol we did not offer, or none, is a bad switch
      // (the server answered, so a caller may fall back), not a network failure.
      if (/subprotocol/i.test(error.message)) {
        settle(
          context.badSwitch(
            'The stream server switched to WebSocket with none of the offered protocols.',
            error.message,
          ),
        );
        return;
      }
      settle(
        context.fail('unavailable', 'The WebSocket upgrade with the stream server failed.', {
          detail: describeError(error),
          cause: error,
        }),
      );
    };
    const onClose = (): void =>
      settle(
        context.fail(
          'unavailable',
          'The stream server closed the connection during the WebSocket upgrade.',
          { detail: context.url },
        ),
      );
    signal.addEventListener('abort', onAbort, { once: true });
    ws.once('open', onOpen);
    ws.on('unexpected-response', onUnexpected);
    ws.on('error', onError);
    ws.once('close', onClose);
  });
}
