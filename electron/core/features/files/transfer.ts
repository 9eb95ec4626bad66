/**
 * What a download (download.ts) and an upload (upload.ts) share: the record the list
 * shows, the session of the monitor, and ending exactly once. The manager keeps the list
 * and tells subscribers; a transfer reaches it only through `TransferContext`.
 */
import type { Readable } from 'node:stream';
import { AppError, isAppError } from '../../../../shared/errors';
import { logger } from '../../base/log';
import type { openRemoteCommand, RemoteCommand } from '../../base/streaming';
import type { NodeManager } from '../nodes';
import type { SessionHandle, SessionRegistry } from '../sessions';
import type { Access } from './access';
import type { TransferRecord } from './progress';

const filesLog = logger('files');
const stderrCap = 8 * 1024;
/** sha256sum reads the whole file again: allow it time for a large one. */
export const checksumTimeoutSeconds = 300;
export const statTimeoutSeconds = 15;

/** What a transfer needs of the manager that owns it. */
export interface TransferContext {
  readonly nodes: Pick<NodeManager, 'client' | 'nodeName' | 'dialer'>;
  readonly sessions: SessionRegistry | undefined;
  readonly openRemoteCommand: typeof openRemoteCommand;
  /** Bytes one transfer may move. */
  readonly maxBytes: number;
  /** A transfer began or ended: subscribers hear it now. */
  changed(): void;
  /** Bytes moved: subscribers hear it soon (a few times a second at most). */
  progressed(): void;
}

export type EndState = 'done' | 'failed' | 'cancelled';

export abstract class Transfer {
  abstract readonly kind: 'download' | 'upload';
  session: SessionHandle | undefined;

  constructor(
    protected readonly context: TransferContext,
    readonly record: TransferRecord,
    readonly nodeId: string,
    readonly access: Access,
  ) {}

  /**
   * Ends the transfer once; returns whether this call ended it. `release` false keeps the
   * exec's streams open (an upload's abort closes them itself once the script cleaned up).
   */
  end(state: EndState, error?: unknown, release = true): boolean {
    if (!this.record.end(state, error)) return false;
    const reason =
      state === 'done'
        ? `${this.kind === 'download' ? 'Downloaded' : 'Uploaded'} ${this.record.bytes} bytes.`
        : errorMessage(error);
    this.session?.end({ state: state === 'done' ? 'ended' : 'failed', reason });
    this.released(state, error, release);
    if (state === 'failed') filesLog.info(`A ${this.kind} failed: ${reason}`);
    this.context.changed();
    return true;
  }

  /**
   * Every byte moved, not yet kept: the list and the monitor say the check runs (the
   * transfer's second phase, see `TransferState`).
   */
  protected verifying(): void {
    if (!this.record.verifying()) return;
    this.session?.update({
      stateReason: `Every byte ${this.kind === 'download' ? 'arrived' : 'is in the container'}: checking its sha256 before it is kept.`,
    });
    this.context.changed();
  }

  /** Stops the transfer at the user's word (or the monitor's); what it wrote is removed. */
  abstract cancel(error: AppError): Promise<void>;

  /** Why a call on an ended transfer is refused: how it ended. */
  endedError(): AppError {
    const snapshot = this.record.snapshot();
    if (snapshot.error !== undefined) return new AppError(snapshot.error);
    return new AppError({
      code: 'failed-precondition',
      message: `The ${this.kind} has ended (${snapshot.state}).`,
    });
  }

  /** The kind's own teardown once ended (streams, timers). */
  protected abstract released(state: EndState, error: unknown, release: boolean): void;
}

/** The first few KiB of an exec's output: stderr for the error in words, a script's answer. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(stream: Readable | undefined) {
    stream?.on('data', (chunk: Buffer) => {
      if (this.size >= stderrCap) return;
      this.chunks.push(chunk);
      this.size += chunk.byteLength;
    });
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * The streams error when the session is closed under them (a cancel, the node gone); the
 * transfer learns why from the command's result, so those errors are not left unheard.
 */
export function quiet(remote: RemoteCommand): void {
  for (const stream of [remote.stdin, remote.stdout, remote.stderr]) {
    stream?.on('error', () => undefined);
  }
}

export function cancelled(message = 'Cancelled.'): AppError {
  return new AppError({ code: 'cancelled', message });
}

export function tooLarge(what: string, max: number): AppError {
  return new AppError({
    code: 'resource-exhausted',
    message: `${what} is larger than ${formatBytes(max)}, the most one transfer may move: it was stopped.`,
    hint: 'Move it in parts (a subdirectory at a time), or with crictl on the node.',
  });
}

function formatBytes(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

export function errorMessage(error: unknown): string {
  return isAppError(error) ? error.message : error instanceof Error ? error.message : String(error);
}
