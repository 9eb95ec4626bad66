import { Emitter } from '../event';
import type { Disposable } from '../lifecycle';
import { decodeFrame, encodeFrame } from './frames';

/**
 * The one thing the RPC needs from a transport: send a message, hear messages, hear the
 * end. Electron MessagePorts, a browser WebSocket and the in-memory pair below all fit,
 * so the client and the dispatcher are the same code in every mode.
 */
export interface MessagePortLike {
  /**
   * Sends one message: plain data, with Uint8Array payloads where the contract has bytes
   * (structured clone carries them as they are, the WebSocket in binary frames).
   */
  postMessage(message: unknown): void;
  onMessage(listener: (message: unknown) => void): Disposable;
  /** Fires once, when either side closes the port or the transport drops. */
  onClose(listener: () => void): Disposable;
  close(): void;
}

export interface MessagePortPairOptions {
  /**
   * How messages are copied between the ends: `structured` like a MessagePort,
   * `json` like the WebSocket transport: the same frames (frames.ts), so undefined array
   * items become null and payloads travel in binary frames.
   */
  readonly clone?: 'structured' | 'json';
}

type Clone = (value: unknown) => unknown;

function cloner(kind: 'structured' | 'json'): Clone {
  const structured = (globalThis as { structuredClone?: Clone }).structuredClone;
  if (kind === 'structured' && structured !== undefined) return structured;
  return (value) => (value === undefined ? undefined : decodeFrame(encodeFrame(value)));
}

/**
 * Two connected in-memory ports: what one posts, the other receives, asynchronously and
 * copied, as over a real transport. The test fake every RPC test (and the renderer's
 * in-memory client) runs on.
 */
export function createMessagePortPair(
  options: MessagePortPairOptions = {},
): [MessagePortLike, MessagePortLike] {
  const clone = cloner(options.clone ?? 'structured');
  const messages = [new Emitter<unknown>(), new Emitter<unknown>()] as const;
  const closes = [new Emitter<void>(), new Emitter<void>()] as const;
  let closed = false;

  const close = (): void => {
    if (closed) return;
    closed = true;
    // Like a transport, the far end learns of the close after what was already sent.
    void Promise.resolve().then(() => {
      closes[0].fire();
      closes[1].fire();
    });
  };

  const end = (self: 0 | 1): MessagePortLike => {
    const other = self === 0 ? 1 : 0;
    return {
      postMessage(message) {
        if (closed) return;
        const copy = clone(message);
        void Promise.resolve().then(() => {
          if (!closed) messages[other].fire(copy);
        });
      },
      onMessage: (listener) => messages[self].event(listener),
      onClose: (listener) => closes[self].event(() => listener()),
      close,
    };
  };
  return [end(0), end(1)];
}
