/**
 * Metrics of a forward's connections: live counters per connection, totals per forward,
 * and a bounded history of ended connections for the UI.
 */
import { toAppErrorData, type AppError } from '../../../../shared/errors';
import type {
  ConnectionMetrics,
  ConnectionStateName,
  ForwardError,
  ForwardMetrics,
} from '../../../../shared/model';

/** Ended connections kept for display; older ones only count in the totals. */
export const MAX_RECENT_CONNECTIONS = 50;

export interface ConnectionRecord {
  readonly id: number;
  readonly localPort: number;
  readonly remotePort: number;
  readonly client: string;
  readonly openedAt: number;
  state: ConnectionStateName;
  closedAt?: number;
  bytesIn: number;
  bytesOut: number;
  error?: AppError;
}

function toMetrics(record: ConnectionRecord): ConnectionMetrics {
  return {
    id: record.id,
    localPort: record.localPort,
    remotePort: record.remotePort,
    client: record.client,
    state: record.state,
    openedAt: record.openedAt,
    ...(record.closedAt !== undefined && { closedAt: record.closedAt }),
    bytesIn: record.bytesIn,
    bytesOut: record.bytesOut,
    ...(record.error !== undefined && { error: toAppErrorData(record.error) }),
  };
}

export class ConnectionTable {
  private nextId = 1;
  private readonly live = new Map<number, ConnectionRecord>();
  /** Ended connections, oldest first, at most MAX_RECENT_CONNECTIONS. */
  private readonly recent: ConnectionRecord[] = [];
  private total = 0;
  private failed = 0;
  /** Bytes of ended connections; live ones are summed at snapshot time. */
  private endedBytesIn = 0;
  private endedBytesOut = 0;
  private lastError: ForwardError | undefined;

  add(localPort: number, remotePort: number, client: string): ConnectionRecord {
    const record: ConnectionRecord = {
      id: this.nextId++,
      localPort,
      remotePort,
      client,
      openedAt: Date.now(),
      state: 'waiting',
      bytesIn: 0,
      bytesOut: 0,
    };
    this.live.set(record.id, record);
    this.total++;
    return record;
  }

  /** Ends a connection; with an error, it counts as failed and becomes the last error. */
  end(record: ConnectionRecord, error?: AppError): void {
    if (!this.live.delete(record.id)) return;
    record.closedAt = Date.now();
    record.state = error === undefined ? 'closed' : 'failed';
    if (error !== undefined) {
      record.error = error;
      this.failed++;
      this.noteError(error);
    }
    this.endedBytesIn += record.bytesIn;
    this.endedBytesOut += record.bytesOut;
    this.recent.push(record);
    if (this.recent.length > MAX_RECENT_CONNECTIONS) this.recent.shift();
  }

  /** A forward-level error (a lost session, a failed reconnect attempt). */
  noteError(error: AppError): void {
    this.lastError = { ...toAppErrorData(error), at: Date.now() };
  }

  get openCount(): number {
    return this.live.size;
  }

  metrics(): ForwardMetrics {
    let bytesIn = this.endedBytesIn;
    let bytesOut = this.endedBytesOut;
    for (const record of this.live.values()) {
      bytesIn += record.bytesIn;
      bytesOut += record.bytesOut;
    }
    return {
      openConnections: this.live.size,
      totalConnections: this.total,
      failedConnections: this.failed,
      bytesIn,
      bytesOut,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Live connections first (oldest first), then ended ones (most recent first). */
  connections(): ConnectionMetrics[] {
    return [...this.live.values(), ...[...this.recent].reverse()].map(toMetrics);
  }
}
