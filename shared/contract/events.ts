import type { AppError } from '../errors';
import type { Disposable } from '../lifecycle';
import type {
  FanoutUpdate,
  FileTransfer,
  ForwardEntry,
  LogUpdate,
  NodesDelta,
  PendingPrompt,
  ResourceDelta,
  SessionSnapshot,
  StatsUpdate,
  TerminalEvent,
  TimelineUpdate,
} from '../model';

/**
 * Event streams the UI can subscribe to: name → [subscription argument, event payload].
 * Unsubscribing is a protocol message, so a closed view stops the work behind it.
 */
export interface Events {
  /**
   * Nodes' statuses: every node on subscribe (a reset), then only the nodes that changed,
   * so a change costs the same with 5 nodes or 500 (fold with `applyNodesDelta`).
   */
  readonly nodes: [argument: undefined, payload: NodesDelta];
  /** One node's resources: a reset first, then deltas as the runtime changes. */
  readonly resources: [argument: { readonly nodeId: string }, payload: ResourceDelta];
  /**
   * Every open question a connection attempt is waiting on (SSH host keys, key
   * passphrases), oldest first; sent whole on subscribe and on every change. Answer with
   * `nodes.answerPrompt`.
   */
  readonly prompts: [argument: undefined, payload: readonly PendingPrompt[]];
  /** One terminal's output, then its exit. Output waits for the first subscriber. */
  readonly terminal: [argument: { readonly terminalId: string }, payload: TerminalEvent];
  /**
   * Every session, live ones and the recent history, sent whole on subscribe, on every
   * state change and once a second while any session is live.
   */
  readonly sessions: [argument: undefined, payload: readonly SessionSnapshot[]];
  /** Every forward, sent whole on subscribe and on every change (traffic a few times a second). */
  readonly forwards: [argument: undefined, payload: readonly ForwardEntry[]];
  /** An open log's growth, rotation and end. */
  readonly logs: [argument: { readonly logId: string }, payload: LogUpdate];
  /**
   * A connected node's container and pod stats, polled while anyone is subscribed: the
   * recent history first (`reset: true`), then each sample. Ends with an error when the
   * node disconnects.
   */
  readonly stats: [argument: { readonly nodeId: string }, payload: StatsUpdate];
  /** One run on many: the run and every row first (`reset`), then the rows that changed. */
  readonly fanout: [argument: { readonly runId: string }, payload: FanoutUpdate];
  /**
   * Every file transfer, running ones and the last few ended, sent whole on subscribe, on
   * every change of state and a few times a second while any runs.
   */
  readonly transfers: [argument: undefined, payload: readonly FileTransfer[]];
  /**
   * Every connected node's lifecycle events (the flight recorder): all those kept first
   * (`reset`), then each new batch.
   */
  readonly timeline: [argument: undefined, payload: TimelineUpdate];
}

export type EventArgument<E extends keyof Events> = Events[E][0];
export type EventPayload<E extends keyof Events> = Events[E][1];

/** Where a subscription's payloads go. After `error` the subscription is over. */
export interface EventSink<P> {
  next(payload: P): void;
  error(error: AppError): void;
}

/**
 * The server side of the events: one function per event that starts a subscription and
 * returns what stops it. Throwing (e.g. an unknown node) refuses the subscription.
 */
export type EventSource = {
  readonly [E in keyof Events]: (
    argument: EventArgument<E>,
    sink: EventSink<EventPayload<E>>,
  ) => Disposable;
};
