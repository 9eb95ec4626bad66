import { AppError } from '../../../shared/errors';
import { Emitter } from '../../../shared/event';
import { toDisposable } from '../../../shared/lifecycle';
import {
  decodeFrame,
  defaultRpcLimits,
  encodeFrame,
  type MessagePortLike,
} from '../../../shared/rpc';

const encoder = new TextEncoder();

/**
 * A DOM MessagePort (what Electron's preload hands the page) as the RPC's port. Payloads
 * (Uint8Array) go by structured clone, copied, never transferred: Electron loses the data
 * of a message whose transfer list holds an ArrayBuffer on its way to a MessagePortMain
 * (electron/electron#34905), and the main process can't transfer one back (#37565). What
 * the pane sends is small (keystrokes, paste pieces of 64 KiB with buffers of their own).
 */
export function fromDomMessagePort(port: MessagePort): MessagePortLike {
  const closes = new Emitter<void>();
  let closed = false;
  const fireClose = (): void => {
    if (closed) return;
    closed = true;
    closes.fire();
    closes.dispose();
  };
  // Chromium fires `close` on a MessagePort whose other end went away (main reloaded us,
  // or the core dropped the pipe).
  port.addEventListener('close', fireClose);
  port.start();
  return {
    postMessage: (message) => {
      if (!closed) port.postMessage(message);
    },
    onMessage(listener) {
      const handler = (event: MessageEvent): void => listener(event.data);
      port.addEventListener('message', handler);
      return toDisposable(() => port.removeEventListener('message', handler));
    },
    onClose: (listener) => closes.event(() => listener()),
    close() {
      port.close();
      fireClose();
    },
  };
}

/**
 * A WebSocket carrying the RPC, one message per frame (shared/rpc/frames.ts: JSON text for
 * control, binary frames for bytes). Resolves once the socket is open;
 * rejects if it never opens (no login cookie, host gone). A message larger than the
 * host accepts is refused here with an AppError (the host would close the socket on it).
 */
export function openWebSocketPort(
  url: string,
  maxMessageBytes = defaultRpcLimits.maxMessageBytes,
): Promise<MessagePortLike> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    const messages = new Emitter<unknown>();
    const closes = new Emitter<void>();
    let opened = false;
    let closed = false;
    socket.addEventListener('open', () => {
      opened = true;
      resolve(port);
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      const data: unknown = event.data;
      let message: unknown;
      try {
        if (typeof data === 'string') message = decodeFrame(data);
        else if (data instanceof ArrayBuffer) message = decodeFrame(new Uint8Array(data));
        else return;
      } catch {
        return;
      }
      messages.fire(message);
    });
    socket.addEventListener('close', () => {
      if (!opened) reject(new Error(`Could not open ${url}`));
      if (closed) return;
      closed = true;
      closes.fire();
      closes.dispose();
    });
    const port: MessagePortLike = {
      postMessage(message) {
        if (socket.readyState !== WebSocket.OPEN) return;
        const frame = encodeFrame(message);
        // At most 3 bytes of UTF-8 per UTF-16 unit: encode only when it could be too large.
        const tooLarge =
          typeof frame === 'string'
            ? frame.length * 3 > maxMessageBytes && encoder.encode(frame).length > maxMessageBytes
            : frame.byteLength > maxMessageBytes;
        if (tooLarge) {
          throw new AppError({
            code: 'resource-exhausted',
            message: `The request is larger than ${maxMessageBytes / (1024 * 1024)} MiB, the most one message may carry.`,
            hint: 'Send less at once (a smaller spec, a shorter paste).',
          });
        }
        socket.send(frame);
      },
      onMessage: (listener) => messages.event(listener),
      onClose: (listener) => closes.event(() => listener()),
      close: () => socket.close(),
    };
  });
}

/**
 * Electron: asks the preload for a port and waits for it. The page starts the handshake,
 * so a port can't be posted before anyone listens (the preload runs first).
 */
export function requestElectronPort(timeoutMs = 10_000): Promise<MessagePortLike> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== window || event.data !== 'porthole:port') return;
      const port = event.ports[0];
      if (port === undefined) return;
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
      resolve(fromDomMessagePort(port));
    };
    const timer = setTimeout(() => {
      window.removeEventListener('message', onMessage);
      reject(new Error('The Porthole shell did not hand over its message port.'));
    }, timeoutMs);
    window.addEventListener('message', onMessage);
    window.postMessage('porthole:hello', window.location.origin);
  });
}
