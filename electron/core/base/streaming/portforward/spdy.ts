/**
 * Port-forward over SPDY/3.1: one SPDY connection per forward (`portforward.k8s.io`), one stream
 * pair per TCP connection. The pair is `error` (we never write there, so it is opened with
 * FIN) then `data`, both naming the port and a request id unique within the connection; the
 * runtime then dials localhost:<port> inside the pod's network namespace and splices it
 * to the data stream, or writes why it could not on the error stream.
 */
import type { AppError } from '../../../../../shared/errors';
import type { Disposable } from '../../../../../shared/lifecycle';
import type { SpdyConnection, SpdyStream } from '../spdy';
import { TaskQueue } from '../../tasks';
import { collectText } from './text';
import type { PortForwardTransport, RemoteConnection } from './types';
import { logger } from '../../log';

export const SPDY_PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/** The runtimes allow 30 s for a pair; a healthy one answers in well under a millisecond. */
export const DEFAULT_PAIR_TIMEOUT_MS = 10_000;
/**
 * Pairs waiting for their SYN_REPLYs at once. Far below the connection's limit on queued
 * creates (256), and enough that a burst of connections isn't served one round trip at a time.
 */
const PAIRS_IN_FLIGHT = 16;

/** The bridge reports stream errors; this keeps one that races its listeners handled. */
const swallow = logger('streaming').failure('A SPDY port-forward stream failed');

class SpdyRemoteConnection implements RemoteConnection {
  readonly canHalfClose = true;
  readonly errorText: Promise<string>;

  constructor(
    readonly remotePort: number,
    private readonly errorStream: SpdyStream,
    private readonly dataStream: SpdyStream,
  ) {
    errorStream.on('error', swallow);
    dataStream.on('error', swallow);
    this.errorText = collectText(errorStream);
  }

  get readable(): SpdyStream {
    return this.dataStream;
  }

  get writable(): SpdyStream {
    return this.dataStream;
  }

  close(): void {
    // reset() sends RST_STREAM CANCEL only for a stream still open on the wire.
    this.dataStream.reset();
    this.errorStream.reset();
  }
}

export class SpdyPortForwardTransport implements PortForwardTransport {
  readonly kind = 'spdy' as const;
  private readonly queue = new TaskQueue(PAIRS_IN_FLIGHT);
  private nextRequestId = 0;
  private isClosed = false;

  constructor(
    private readonly connection: SpdyConnection,
    private readonly pairTimeoutMs = DEFAULT_PAIR_TIMEOUT_MS,
  ) {
    connection.onDidClose(() => {
      this.isClosed = true;
    });
  }

  get protocol(): string {
    return this.connection.protocol;
  }

  get closed(): boolean {
    return this.isClosed || this.connection.closed;
  }

  open(remotePort: number): Promise<RemoteConnection> {
    const port = String(remotePort);
    const requestid = String(this.nextRequestId++);
    const timeoutMs = this.pairTimeoutMs;
    // Both SYN_STREAMs go out back to back, error first: the connection writes them in call
    // order, so ids increase and a pair is never split by another connection's streams.
    return this.queue.run(async () => {
      const [errorResult, dataResult] = await Promise.allSettled([
        this.connection.createStream(
          { streamtype: 'error', port, requestid },
          { fin: true, timeoutMs },
        ),
        this.connection.createStream({ streamtype: 'data', port, requestid }, { timeoutMs }),
      ]);
      if (errorResult.status === 'fulfilled' && dataResult.status === 'fulfilled') {
        return new SpdyRemoteConnection(remotePort, errorResult.value, dataResult.value);
      }
      // Half a pair is no use: the runtime would wait 30 s for the other half.
      if (errorResult.status === 'fulfilled') errorResult.value.reset();
      if (dataResult.status === 'fulfilled') dataResult.value.reset();
      throw errorResult.status === 'rejected'
        ? (errorResult.reason as Error)
        : ((dataResult as PromiseRejectedResult).reason as Error);
    });
  }

  onDidClose(listener: (error?: AppError) => void): Disposable {
    return this.connection.onDidClose(listener);
  }

  dispose(): void {
    this.isClosed = true;
    this.connection.dispose();
  }
}
