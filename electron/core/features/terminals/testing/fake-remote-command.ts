/**
 * A RemoteCommand over in-memory streams, for the faults and timings the real
 * runtimes can't be made to produce on demand. The test plays the container: it writes
 * output (with real stream backpressure), reads input, and settles the result. And the
 * container it stands for, as a verbose ContainerStatus.
 */
import { PassThrough } from 'node:stream';
import { AppError } from '../../../../../shared/errors';
import type { RemoteCommandResult, RemoteCommand, TransportKind } from '../../../base/streaming';
import type { ContainerDetail } from '../../../../../shared/model';
import { fakeContainer } from '../../nodes/testing/fake-node-client';

export interface FakeRemoteCommandOptions {
  readonly stdin?: boolean;
  readonly stderr?: boolean;
  readonly transport?: TransportKind;
  /** The output streams' buffer before `write` returns false (default 16 KiB). */
  readonly highWaterMark?: number;
}

export class FakeRemoteCommand implements RemoteCommand {
  readonly stdin: PassThrough | undefined;
  readonly stdout: PassThrough;
  readonly stderr: PassThrough | undefined;
  readonly negotiated;
  readonly attempts;
  readonly capabilities = { resize: true, closeStdin: true };
  readonly result: Promise<RemoteCommandResult>;
  readonly resizes: (readonly [number, number])[] = [];
  disposed = false;
  private settled = false;
  private resolveResult!: (result: RemoteCommandResult) => void;
  private rejectResult!: (error: unknown) => void;

  constructor(options: FakeRemoteCommandOptions = {}) {
    const highWaterMark = options.highWaterMark ?? 16 * 1024;
    this.stdin = options.stdin === false ? undefined : new PassThrough();
    this.stdout = new PassThrough({ highWaterMark });
    this.stderr = options.stderr === true ? new PassThrough({ highWaterMark }) : undefined;
    const transport = options.transport ?? 'spdy';
    this.negotiated = { transport, protocol: 'v4.channel.k8s.io' };
    this.attempts = [
      { transport, protocolsOffered: ['v4.channel.k8s.io'], outcome: 'ok' as const, durationMs: 1 },
    ];
    this.result = new Promise((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    this.result.catch(() => undefined);
  }

  /** Writes output as a container would: resolves once the stream accepted it (drain). */
  async produce(data: Buffer, stream: PassThrough = this.stdout): Promise<void> {
    if (!stream.write(data)) {
      await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    }
  }

  /** The process ended: output ends, then the status arrives. */
  exit(exitCode: number): void {
    this.stdout.end();
    this.stderr?.end();
    this.settle({
      exitCode,
      reason: exitCode === 0 ? 'Success' : 'NonZeroExitCode',
      message: '',
      negotiated: this.negotiated,
      attempts: this.attempts,
    });
  }

  /** The connection failed: the streams fail with it. */
  drop(error: AppError): void {
    if (this.settled) return;
    this.settled = true;
    this.stdout.destroy(error);
    this.stderr?.destroy(error);
    this.rejectResult(error);
  }

  resize(cols: number, rows: number): void {
    this.resizes.push([cols, rows]);
  }

  closeStdin(): void {
    this.stdin?.end();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.drop(new AppError({ code: 'cancelled', message: 'The session was closed.' }));
  }

  private settle(result: RemoteCommandResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveResult(result);
  }
}

/** A running container's verbose status, containerd's way (CRI config in the info). */
export function fakeContainerDetail(
  id: string,
  overrides: Partial<ContainerDetail> = {},
): ContainerDetail {
  return {
    ...fakeContainer(id, 'pod1'),
    reason: '',
    message: '',
    mounts: [],
    logPath: '',
    info: { info: { config: { tty: true, stdin: true } } },
    ...overrides,
  };
}
