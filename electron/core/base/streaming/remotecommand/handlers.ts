/**
 * One small handler per remote-command protocol version, each extending the previous
 * (as client-go's remotecommand): v1 has no error data, v2 sends plain text on failure,
 * v3 adds resize, v4 replaces the text by a JSON status (sent on success too), v5 adds
 * the CLOSE signal that half-closes stdin over WebSocket. `handlerFor` is the one place
 * where a negotiated protocol picks its handler.
 */
import { AppError } from '../../../../../shared/errors';
import { decodeStatus, type CommandStatus } from './status';

export type TransportKind = 'spdy' | 'websocket';
export type ProtocolVersion = 1 | 2 | 3 | 4 | 5;

/** What the error channel carried, turned into an outcome (or why there is none). */
export type StatusResult = CommandStatus | AppError;

export class V1Handler {
  readonly version: ProtocolVersion = 1;
  /** Resize messages reach the PTY. */
  readonly supportsResize: boolean = false;
  /** The protocol has a message that half-closes a channel (WebSocket needs it for stdin EOF). */
  readonly supportsCloseSignal: boolean = false;
  /** The server always ends with a status, so its absence means an abnormal end. */
  readonly statusRequired: boolean = false;

  /** v1 servers write nothing on the error stream: the outcome is unknown. */
  interpret(_errorData: Buffer): StatusResult {
    return { reason: 'Unknown', message: 'The command ended (protocol v1 reports no status).' };
  }
}

export class V2Handler extends V1Handler {
  override readonly version: ProtocolVersion = 2;

  /** Plain text on failure only; no exit code is ever sent. */
  override interpret(errorData: Buffer): StatusResult {
    const text = errorData.toString('utf8').trim();
    if (text === '') return { reason: 'Success', message: '' };
    return { reason: 'Failure', message: text };
  }
}

export class V3Handler extends V2Handler {
  override readonly version: ProtocolVersion = 3;
  override readonly supportsResize: boolean = true;
}

export class V4Handler extends V3Handler {
  override readonly version: ProtocolVersion = 4;
  override readonly statusRequired: boolean = true;

  override interpret(errorData: Buffer): StatusResult {
    if (errorData.length === 0) {
      return new AppError({
        code: 'connection-lost',
        message: 'The session ended without a command status.',
        detail: 'protocol v4 always sends a status; none arrived',
      });
    }
    try {
      return decodeStatus(errorData);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
  }
}

export class V5Handler extends V4Handler {
  override readonly version: ProtocolVersion = 5;
  override readonly supportsCloseSignal: boolean = true;
}

export type ProtocolHandler = V1Handler;

/** Subprotocols offered, best first. SPDY servers stop at v4; WebSocket servers name them differently. */
export const offeredProtocols: Readonly<Record<TransportKind, readonly string[]>> = {
  spdy: [
    'v5.channel.k8s.io',
    'v4.channel.k8s.io',
    'v3.channel.k8s.io',
    'v2.channel.k8s.io',
    'channel.k8s.io',
  ],
  // There are no v2/v3 WebSocket names; the unversioned ones behave as v3 there.
  websocket: [
    'v5.channel.k8s.io',
    'v4.channel.k8s.io',
    'v4.base64.channel.k8s.io',
    'channel.k8s.io',
    'base64.channel.k8s.io',
  ],
};

const handlers: Readonly<Record<TransportKind, Readonly<Record<string, () => ProtocolHandler>>>> = {
  spdy: {
    'v5.channel.k8s.io': () => new V5Handler(),
    'v4.channel.k8s.io': () => new V4Handler(),
    'v3.channel.k8s.io': () => new V3Handler(),
    'v2.channel.k8s.io': () => new V2Handler(),
    'channel.k8s.io': () => new V1Handler(),
    // A server that names no version predates negotiation: v1, as client-go assumes.
    '': () => new V1Handler(),
  },
  websocket: {
    'v5.channel.k8s.io': () => new V5Handler(),
    'v4.channel.k8s.io': () => new V4Handler(),
    'v4.base64.channel.k8s.io': () => new V4Handler(),
    // The Kubernetes WebSocket server treats the unversioned protocols as pre-v4: plain
    // text errors, and the resize channel open with tty.
    'channel.k8s.io': () => new V3Handler(),
    'base64.channel.k8s.io': () => new V3Handler(),
  },
};

/** The handler for the protocol the server chose; a protocol we never offered is a protocol error. */
export function handlerFor(transport: TransportKind, protocol: string): ProtocolHandler {
  const create = handlers[transport][protocol];
  if (create === undefined) {
    throw new AppError({
      code: 'protocol-error',
      message: `The stream server chose a protocol Porthole does not speak (${protocol || 'none'}).`,
      detail: `${transport}: offered ${offeredProtocols[transport].join(', ')}`,
    });
  }
  return create();
}
