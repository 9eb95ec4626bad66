/**
 * One handler per remote-command protocol version, each extending the previous, as
 * client-go's v1.go…v5.go: the handler owns the protocol, a transport only creates the
 * stream of a type (streams.ts).
 * - v1: the error stream plus stdin/stdout/stderr as requested; no status (the outcome is
 *   unknown); stdin ends only where the transport has its own half-close (SPDY FIN).
 * - v2: the error stream carries plain text on failure, nothing on success.
 * - v3: adds the resize stream, with a terminal only, and sends sizes on it as JSON.
 * - v4: the error stream carries a JSON status, on success too: none is an abnormal end.
 * - v5: adds the CLOSE signal, so stdin can end where the transport has no half-close of
 *   its own (WebSocket).
 * `handlerFor` is the one place where a negotiated protocol picks its handler.
 */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import type { UpgradeTransport } from '../upgrade';
import { ProtocolStreams, type ErrorStreamEnd } from './protocol-streams';
import { decodeStatus, type CommandStatus } from './status';
import type {
  InputEnd,
  InputStreamType,
  OutputStreamType,
  RemoteStreams,
  StreamConnection,
  StreamFlags,
  StreamType,
  TerminalSize,
} from './streams';

export type TransportKind = 'spdy' | 'websocket';
export type ProtocolVersion = 1 | 2 | 3 | 4 | 5;

/** A transport as the user reads it in messages. */
export const transportNames: Readonly<Record<TransportKind, UpgradeTransport>> = {
  spdy: 'SPDY',
  websocket: 'WebSocket',
};

export function noHalfCloseError(connection: StreamConnection): AppError {
  const over = `${connection.protocol || 'this protocol'} over ${transportNames[connection.transport]}`;
  return new AppError({
    code: 'failed-precondition',
    message: `stdin cannot be closed on this session: ${over} has no half-close.`,
    detail:
      'Only v5.channel.k8s.io can end stdin over WebSocket; ending the socket would lose the exit status.',
    hint: 'Use the SPDY transport (or a runtime that speaks WebSocket v5) when the command must see end of input.',
  });
}

export class V1Handler {
  readonly version: ProtocolVersion = 1;

  /**
   * The streams to open, in this order. The server counts them: an extra one hangs the
   * setup, a missing one times it out. (A terminal has no stderr: the request refuses it.)
   */
  streamTypes(flags: StreamFlags): StreamType[] {
    return [
      'error',
      ...(flags.stdin ? (['stdin'] as const) : []),
      ...(flags.stdout ? (['stdout'] as const) : []),
      ...(flags.stderr ? (['stderr'] as const) : []),
    ];
  }

  /**
   * What ending stdin (or any stream we write) does: the transport's own half-close if it
   * has one; before v5 there is nothing else.
   */
  inputEnd(connection: StreamConnection): InputEnd {
    return connection.halfClose === 'frame'
      ? { kind: 'half-close' }
      : { kind: 'refuse', error: noHalfCloseError(connection) };
  }

  /** Before v3 there is no resize stream, so nothing to send a size on. */
  writeResize(_stream: Writable, _size: TerminalSize): void {
    // Not reached: no version below v3 opens a resize stream.
  }

  /** v1 servers write nothing on the error stream: the outcome is unknown. */
  interpret(_errorData: Buffer): CommandStatus | AppError {
    return { reason: 'Unknown', message: 'The command ended (protocol v1 reports no status).' };
  }

  /**
   * The outcome of the session from how the error stream ended: what it carried, read as
   * this version writes it; or, when it carried nothing, why the session ended.
   */
  outcome(end: ErrorStreamEnd): CommandStatus {
    if (end.errorData.length === 0) {
      if (end.failure !== undefined) throw end.failure;
      if (end.local) {
        throw new AppError({
          code: 'cancelled',
          message: 'The session was closed before the command finished.',
        });
      }
    }
    const status = this.interpret(end.errorData);
    if (status instanceof AppError) throw status;
    return status;
  }

  /**
   * Opens this version's streams for `flags` over `connection`, one after another, then
   * lets data flow: the server starts copying once it has every stream, and data sent
   * before that could wedge it.
   */
  async open(connection: StreamConnection, flags: StreamFlags): Promise<RemoteStreams> {
    const inputEnd = this.inputEnd(connection);
    const outputs: Partial<Record<OutputStreamType, Readable>> = {};
    const inputs: Partial<Record<InputStreamType, Writable>> = {};
    for (const type of this.streamTypes(flags)) {
      if (type === 'stdin' || type === 'resize') {
        inputs[type] = await connection.openInput(type, inputEnd);
      } else {
        outputs[type] = await connection.openOutput(type);
      }
    }
    const { error, stdout, stderr } = outputs;
    if (error === undefined) throw new Error('every protocol version opens the error stream');
    const streams = new ProtocolStreams(this, connection, {
      error,
      inputEnd,
      ...(inputs.stdin !== undefined && { stdin: inputs.stdin }),
      ...(stdout !== undefined && { stdout }),
      ...(stderr !== undefined && { stderr }),
      ...(inputs.resize !== undefined && { resize: inputs.resize }),
    });
    connection.start();
    return streams;
  }
}

export class V2Handler extends V1Handler {
  override readonly version: ProtocolVersion = 2;

  /** Plain text on failure only; no exit code is ever sent. */
  override interpret(errorData: Buffer): CommandStatus | AppError {
    const text = errorData.toString('utf8').trim();
    if (text === '') return { reason: 'Success', message: '' };
    return { reason: 'Failure', message: text };
  }
}

export class V3Handler extends V2Handler {
  override readonly version: ProtocolVersion = 3;

  /** Adds the resize stream, for a terminal. */
  override streamTypes(flags: StreamFlags): StreamType[] {
    return [...super.streamTypes(flags), ...(flags.tty ? (['resize'] as const) : [])];
  }

  /** One JSON object per size, as the kubelet's TerminalSize (one a line is fine). */
  override writeResize(stream: Writable, size: TerminalSize): void {
    stream.write(JSON.stringify({ Width: size.cols, Height: size.rows }));
  }
}

export class V4Handler extends V3Handler {
  override readonly version: ProtocolVersion = 4;

  /** A JSON status, sent on success too: its absence means an abnormal end. */
  override interpret(errorData: Buffer): CommandStatus | AppError {
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

  /** The CLOSE signal ends stdin where the transport has no half-close of its own. */
  override inputEnd(connection: StreamConnection): InputEnd {
    return connection.halfClose === 'frame' ? super.inputEnd(connection) : { kind: 'half-close' };
  }
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
