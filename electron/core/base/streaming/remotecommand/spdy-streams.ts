/**
 * The SPDY transport for exec/attach: one SPDY stream per stream type, named by its
 * `streamtype` header, on the SPDY connection in ../spdy (our own, because spdy-transport
 * loses data against the runtimes' spdystream: see ../spdy/connection.ts). Which streams, and
 * what they carry, is the protocol handler's (handlers.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import { logger } from '../../log';
import type { SpdyConnection, SpdyStream, SpdyUpgrade } from '../spdy';
import { offeredProtocols } from './handlers';
import {
  upgradeOptions,
  type ConnectionClosed,
  type InputEnd,
  type StreamConnection,
  type StreamTransport,
  type StreamType,
} from './streams';

/**
 * Stream errors also surface through the command's result; this keeps an unobserved one from
 * crashing the process, and logs it.
 */
const swallow = logger('streaming').failure('A remote-command SPDY stream failed');

class SpdyStreamConnection implements StreamConnection {
  readonly transport = 'spdy' as const;
  /** Every stream ends with FIN, on every protocol version. */
  readonly halfClose = 'frame' as const;
  readonly closed: Promise<ConnectionClosed>;
  private failure: AppError | undefined;
  private disposed = false;

  /** `deadline` (epoch ms) bounds every stream's SYN_REPLY: the connection's own timer. */
  constructor(
    private readonly connection: SpdyConnection,
    private readonly deadline: number,
  ) {
    this.closed = new Promise((resolve) => {
      connection.onDidClose((error) => {
        const failure = this.failure ?? (this.disposed ? undefined : error);
        resolve({ local: this.disposed, ...(failure !== undefined && { failure }) });
      });
    });
  }

  get protocol(): string {
    return this.connection.protocol;
  }

  openOutput(type: StreamType): Promise<Readable> {
    return this.open(type);
  }

  async openInput(type: StreamType, end: InputEnd): Promise<Writable> {
    if (end.kind === 'refuse') {
      // FIN is part of SPDY itself: no handler has a reason to refuse it here.
      throw new AppError({
        code: 'internal',
        message: 'A SPDY stream can always be half-closed.',
        detail: end.error.message,
      });
    }
    const stream = await this.open(type);
    // The server never writes on the streams we write, but their readable sides still end
    // (RST at teardown): keep them flowing so the connection never waits on an unread stream.
    stream.resume();
    return stream;
  }

  private async open(type: StreamType): Promise<SpdyStream> {
    const stream = await this.connection.createStream(
      { streamtype: type },
      { timeoutMs: Math.max(1, this.deadline - Date.now()) },
    );
    stream.on('error', swallow);
    return stream;
  }

  start(): void {
    // Data flows on each stream as soon as it is open; the handler opened them all first.
  }

  abort(error: AppError): void {
    this.failure ??= error;
    this.connection.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.connection.dispose();
  }
}

export function spdyTransport(upgrade: SpdyUpgrade): StreamTransport {
  const protocols = offeredProtocols.spdy;
  return {
    transport: 'spdy',
    protocols,
    async connect(options) {
      // One budget for the upgrade and every SYN_REPLY after it.
      const deadline = Date.now() + options.timeoutMs;
      const connection = await upgrade(upgradeOptions(options, protocols));
      return new SpdyStreamConnection(connection, deadline);
    },
  };
}
