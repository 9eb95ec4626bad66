import type { MessagePortMain } from 'electron';
import { Emitter } from '../../shared/event';
import { toDisposable } from '../../shared/lifecycle';
import type { MessagePortLike } from '../../shared/rpc';

/** Electron's main-process MessagePort as the RPC's port (structured clone, no JSON). */
export function fromMessagePortMain(port: MessagePortMain): MessagePortLike {
  const closes = new Emitter<void>();
  let closed = false;
  port.on('close', () => {
    if (closed) return;
    closed = true;
    closes.fire();
    closes.dispose();
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
    onClose: closes.event,
    close: () => port.close(),
  };
  port.start();
  return result;
}
