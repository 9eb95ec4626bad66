/**
 * A running forward as a session in the monitor: its state, transport, target and bytes
 * follow the forward's snapshots. The engine reports cumulative byte counts; the registry
 * takes increments, so the mirror counts what is new since the last snapshot.
 */
import type { AppErrorData } from '../../../../shared/errors';
import type {
  ForwardSnapshot,
  ForwardSpec,
  ForwardTransportInfo,
  SessionAttempt,
  SessionStateName,
} from '../../../../shared/model';
import type { SessionHandle, SessionUpdate } from '../sessions';
import { describeBinding, sessionTargetOf } from './describe';

/** Why Porthole itself stopped a forward (a user's stop, a node that went away…). */
export interface StopCause {
  /** One sentence for the monitor. */
  readonly reason: string;
  /** Set when the stop is worth showing as the forward's last error. */
  readonly error?: AppErrorData;
}

/**
 * The tries the transport took: with a fallback, the refused SPDY upgrade and then
 * WebSocket. How long the refusal took is not reported by the engine, so only the attempt
 * that connected carries a duration (from when the forward started looking).
 */
export function attemptsOf(info: ForwardTransportInfo, connectMs: number): SessionAttempt[] {
  const ok: SessionAttempt = { transport: info.kind, outcome: 'ok', durationMs: connectMs };
  if (info.fallbackReason === undefined) return [ok];
  return [
    { transport: 'spdy', outcome: 'refused', message: info.fallbackReason, durationMs: 0 },
    ok,
  ];
}

export class ForwardSessionMirror {
  private countedIn = 0;
  private countedOut = 0;
  private state: SessionStateName | undefined;
  private reason: string | undefined;
  private transportKey: string | undefined;
  private binding: string | undefined;
  private podSandboxId: string | undefined;
  /** When the forward began looking for its pod (start or reconnect), for the attempt's duration. */
  private lookingSince: number | undefined;

  constructor(
    readonly handle: SessionHandle,
    private readonly spec: ForwardSpec,
  ) {}

  /** Folds a live snapshot in (final ones go to `end`). */
  update(snapshot: ForwardSnapshot): void {
    this.countBytes(snapshot);
    const update: { -readonly [K in keyof SessionUpdate]: SessionUpdate[K] } = {};
    const state = snapshot.state.name;
    if (state === 'starting' || state === 'reconnecting')
      this.lookingSince ??= snapshot.state.since;
    if (state === 'starting' || state === 'active' || state === 'reconnecting') {
      if (state !== this.state || snapshot.state.reason !== this.reason) {
        this.state = state;
        this.reason = snapshot.state.reason;
        update.state = state;
        update.stateReason = snapshot.state.reason;
      }
    }
    const transport = snapshot.transport;
    if (transport !== undefined) {
      const key = `${transport.kind} ${transport.protocol} ${transport.fallbackReason ?? ''}`;
      if (key !== this.transportKey) {
        this.transportKey = key;
        update.transport = transport.kind;
        update.protocol = transport.protocol;
        const connectMs =
          state === 'active' && this.lookingSince !== undefined
            ? Math.max(0, snapshot.state.since - this.lookingSince)
            : 0;
        update.attempts = attemptsOf(transport, connectMs);
      }
    }
    if (state === 'active') this.lookingSince = undefined;
    const binding = describeBinding(this.spec, snapshot.ports);
    if (snapshot.ports.length > 0 && binding !== this.binding) {
      this.binding = binding;
      update.detail = binding;
    }
    if (snapshot.pod !== undefined && snapshot.pod.podSandboxId !== this.podSandboxId) {
      this.podSandboxId = snapshot.pod.podSandboxId;
      update.target = sessionTargetOf(this.spec, snapshot.pod);
    }
    if (Object.keys(update).length > 0) this.handle.update(update);
  }

  /** The forward ended: counts its last bytes and ends the session, saying why. */
  end(
    snapshot: ForwardSnapshot | undefined,
    cause: StopCause | undefined,
    failure?: AppErrorData,
  ): void {
    if (snapshot !== undefined) this.countBytes(snapshot);
    const error = failure ?? (snapshot?.state.name === 'failed' ? snapshot.state.error : undefined);
    if (cause === undefined && (error !== undefined || snapshot?.state.name === 'failed')) {
      this.handle.end({
        state: 'failed',
        reason: snapshot?.state.reason ?? error?.message ?? 'The forward failed.',
        ...(error !== undefined && { error }),
      });
      return;
    }
    this.handle.end({
      state: 'ended',
      reason: cause?.reason ?? snapshot?.state.reason ?? 'Stopped.',
      ...(cause?.error !== undefined && { error: cause.error }),
    });
  }

  private countBytes(snapshot: ForwardSnapshot): void {
    const { bytesIn, bytesOut } = snapshot.metrics;
    if (bytesIn > this.countedIn) this.handle.countIn(bytesIn - this.countedIn);
    if (bytesOut > this.countedOut) this.handle.countOut(bytesOut - this.countedOut);
    this.countedIn = Math.max(this.countedIn, bytesIn);
    this.countedOut = Math.max(this.countedOut, bytesOut);
  }
}
