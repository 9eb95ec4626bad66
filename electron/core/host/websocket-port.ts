import type { WebSocket } from 'ws';
import { Emitter } from '../../../shared/event';
import { toDisposable } from '../../../shared/lifecycle';
import { decodeFrame, encodeFrame, type MessagePortLike } from '../../../shared/rpc';

const MiB = 1024 * 1024;

/**
 * How much may wait to be sent to one peer. A client that stops reading makes every answer
 * and event pile up in this process: past `pauseAbove` the socket is no longer read (the
 * client's own sends then stall), below `resumeBelow` reading goes on, and past `closeAbove`
 * the connection is closed (1008), so one greedy client costs a bounded amount of memory
 * and never the other clients' answers.
 */
export interface OutgoingBufferLimits {
  readonly pauseAbove: number;
  readonly resumeBelow: number;
  readonly closeAbove: number;
}

export const defaultOutgoingBufferLimits: OutgoingBufferLimits = {
  pauseAbove: 4 * MiB,
  resumeBelow: 1 * MiB,
  // Well above the largest snapshot a legitimate client is sent at once.
  closeAbove: 64 * MiB,
};

/** The close code and reason a client that stopped reading gets (a reason fits 123 bytes). */
export const notReadingClose = {
  code: 1008,
  reason: 'Porthole closed this connection: its answers went unread.',
} as const;

export interface WebSocketPortOptions {
  readonly buffer?: OutgoingBufferLimits;
}

/**
 * The host's end of a WebSocket as the RPC's port, one message per frame (frames.ts): JSON
 * text frames for control, binary frames for messages that carry bytes (terminal output
 * and input), whose payloads go as they are. What the
 * core sends is not capped per message (a resources snapshot of thousands of containers is
 * one), but what waits unread is (see OutgoingBufferLimits); what it receives is bounded by
 * the server's maxPayload and the RPC's own limits.
 */
export function webSocketPort(
  socket: WebSocket,
  options: WebSocketPortOptions = {},
): MessagePortLike {
  const buffer = options.buffer ?? defaultOutgoingBufferLimits;
  const closes = new Emitter<void>();
  let closed = false;
  let paused = false;
  const onClose = (): void => {
    if (closed) return;
    closed = true;
    closes.fire();
    closes.dispose();
  };
  socket.on('close', onClose);
  socket.on('error', () => socket.terminate());

  const afterSend = (): void => {
    if (paused && socket.bufferedAmount <= buffer.resumeBelow) {
      paused = false;
      socket.resume();
    }
  };

  return {
    postMessage(message) {
      if (closed || socket.readyState !== socket.OPEN) return;
      const frame = encodeFrame(message);
      socket.send(frame, { binary: typeof frame !== 'string' }, afterSend);
      const queued = socket.bufferedAmount;
      if (queued > buffer.closeAbove) {
        // Whatever is queued goes with the socket; the RPC stops serving it at once.
        socket.close(notReadingClose.code, notReadingClose.reason);
        onClose();
      } else if (queued > buffer.pauseAbove && !paused) {
        paused = true;
        socket.pause();
      }
    },
    onMessage(listener) {
      const handler = (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void => {
        let message: unknown;
        try {
          const bytes = Array.isArray(data)
            ? Buffer.concat(data)
            : Buffer.isBuffer(data)
              ? data
              : Buffer.from(data);
          message = decodeFrame(isBinary ? bytes : bytes.toString('utf8'));
        } catch {
          return; // the dispatcher only ever sees well-formed messages
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
      return closes.event(listener);
    },
    close: () => socket.close(1000, 'closed'),
  };
}
