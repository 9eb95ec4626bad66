/**
 * A connection's health (see RuntimeMonitor): a runtime that stops answering puts the node
 * in `reconnecting` and its watcher on hold; each attempt dials the socket afresh and reads
 * the runtime's facts again; once it answers, the node is connected, its subscribers get a
 * reset, and its capabilities are learnt again in the background (the runtime may have been
 * upgraded meanwhile).
 *
 * Deadlines count on the responsive clock (base/tasks): a probe that waited on a stalled
 * event loop (a loaded machine, a fleet connecting) is not a runtime that stopped answering.
 */
import { responsiveClock } from '../../base/tasks';
import { runtimeLabel } from './entries';
import type { Capabilities } from '../../../../shared/model';
import type { Connection } from './connection';
import { RuntimeMonitor, type RuntimeMonitorTimings } from './runtime-monitor';
import { watchSocketCreated } from './socket-watch';

/**
 * Deadline of the health probe: after 3 s of silence (the monitor's quietMs), a frozen
 * runtime shows in ~4.5 s.
 */
export const probeTimeoutMs = 1500;
/** Deadline of each reconnect attempt's first calls. */
export const attemptTimeoutMs = 3000;
/** The gRPC deadline under a responsive one: only for a loop stalled for this long. */
const wallTimeoutMs = 60_000;

export interface HealthOptions {
  readonly name: string;
  /** A local runtime's socket: it re-creates it as it restarts, the moment to try again. */
  readonly socketPath: string | undefined;
  readonly timings: Partial<RuntimeMonitorTimings> | undefined;
  /** Whether `connection` is still the node's connection. */
  readonly current: () => boolean;
  /** The node's status changed. */
  readonly changed: () => void;
}

export function watchHealth(connection: Connection, options: HealthOptions): RuntimeMonitor {
  const { client } = connection;
  const { current, changed, socketPath, name } = options;
  return new RuntimeMonitor({
    ...(options.timings !== undefined && { timings: options.timings }),
    onDidDrop: (listener) => client.onDidDrop(listener),
    ...(socketPath !== undefined && {
      watchReturn: (listener: () => void) => watchSocketCreated(socketPath, listener),
    }),
    probe: async (signal) => {
      await responsiveClock.within(
        probeTimeoutMs,
        `${name} is not answering: its runtime took the call but sent nothing back within ${probeTimeoutMs / 1000} s.`,
        (deadline) => client.version({ signal: deadline, timeoutMs: wallTimeoutMs }),
        signal,
      );
    },
    reconnect: async (signal) => {
      client.reconnect();
      const runtime = await responsiveClock.within(
        attemptTimeoutMs,
        `${name} is not answering: its runtime took the call but sent nothing back within ${attemptTimeoutMs / 1000} s.`,
        (deadline) => client.runtimeInfo({ signal: deadline, timeoutMs: wallTimeoutMs }),
        signal,
      );
      if (signal.aborted || !current()) return;
      const from = runtimeLabel(connection.runtime);
      const to = runtimeLabel(runtime);
      if (from !== to) connection.runtimeChange = { from, to, at: Date.now() };
      connection.runtime = runtime;
      const events = connection.updates !== 'polling';
      connection.watcher?.resume(events);
      client.probeCapabilities({ signal }).then(
        (capabilities) => {
          if (signal.aborted || !current()) return;
          connection.capabilities = capabilities;
          const updates = updatesOf(capabilities) ?? connection.updates;
          connection.updates = updates;
          const supported = updates !== 'polling';
          if (supported !== events) connection.watcher?.resume(supported);
          changed();
        },
        // Left as they were: the next drop probes again.
        () => undefined,
      );
      changed();
    },
    onChange: (outage) => {
      if (!current()) return;
      const wasDown = connection.outage !== undefined;
      connection.outage = outage;
      if (outage !== undefined && !wasDown) connection.watcher?.suspend();
      if (outage === undefined && wasDown) connection.connectedAt = Date.now();
      changed();
    },
  });
}

/** How resource lists stay fresh, as far as the capabilities say; undefined while unknown. */
export function updatesOf(capabilities: Capabilities): 'events' | 'polling' | undefined {
  switch (capabilities.containerEvents) {
    case 'supported':
      return 'events';
    case 'unknown':
      return undefined;
    case 'unsupported':
    case 'disabled':
      return 'polling';
  }
}
