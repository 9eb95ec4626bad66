import type { WebSocket } from 'ws';
import { toDisposable } from '../../../shared/lifecycle';
import type { MessagePortLike } from '../../../shared/rpc';

/**
 * A server-side WebSocket as the RPC's port: JSON text frames, one message each. Binary
 * frames are reserved for byte streams (terminals, logs) and ignored here.
 */
export function webSocketPort(socket: WebSocket): MessagePortLike {
  const closeListeners = new Set<() => void>();
  let closed = false;
  const onClose = (): void => {
    if (closed) return;
    closed = true;
    for (const listener of [...closeListeners]) listener();
    closeListeners.clear();
  };
  socket.on('close', onClose);
  socket.on('error', () => socket.terminate());
  return {
    postMessage(message) {
      if (socket.readyState !== socket.OPEN) return;
      socket.send(JSON.stringify(message));
    },
    onMessage(listener) {
      const handler = (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void => {
        if (isBinary) return;
        let message: unknown;
        try {
          const bytes = Array.isArray(data)
            ? Buffer.concat(data)
            : Buffer.isBuffer(data)
              ? data
              : Buffer.from(data);
          message = JSON.parse(bytes.toString('utf8'));
        } catch {
          return; // the dispatcher only ever sees well-formed JSON
        }
        listener(message);
      };
      socket.on('message', handler);
      return toDisposable(() => socket.off('message', handler));
    },
    onClose(listener) {
      if (closed) {
        queueMicrotask(listener);
        return toDisposable(() => undefined);
      }
      closeListeners.add(listener);
      return toDisposable(() => closeListeners.delete(listener));
    },
    close: () => socket.close(1000, 'closed'),
  };
}
