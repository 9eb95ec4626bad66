import type { MessagePortMain } from 'electron';
import { toDisposable } from '../../shared/lifecycle';
import type { MessagePortLike } from '../../shared/rpc';

/** Electron's main-process MessagePort as the RPC's port (structured clone, no JSON). */
export function fromMessagePortMain(port: MessagePortMain): MessagePortLike {
  const closeListeners = new Set<() => void>();
  let closed = false;
  port.on('close', () => {
    if (closed) return;
    closed = true;
    for (const listener of [...closeListeners]) listener();
    closeListeners.clear();
  });
  const result: MessagePortLike = {
    postMessage: (message) => {
      if (!closed) port.postMessage(message);
    },
    onMessage(listener) {
      const handler = (event: { data: unknown }): void => listener(event.data);
      port.on('message', handler);
      return toDisposable(() => port.off('message', handler));
    },
    onClose(listener) {
      closeListeners.add(listener);
      return toDisposable(() => closeListeners.delete(listener));
    },
    close: () => port.close(),
  };
  port.start();
  return result;
}
