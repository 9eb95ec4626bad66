/**
 * A forward as the manager keeps it: its definition (what forwards.json saves), the run it
 * has now if any, and what is left of the last one. Also how an entry is shown (a
 * ForwardEntry, plain data for IPC) and saved.
 */
import { AppError, type AppErrorData } from '../../../../shared/errors';
import type { ForwardEntry, ForwardSnapshot, ForwardSpec } from '../../../../shared/model';
import type { NodeClient, NodeManager } from '../nodes';
import { defaultForwardName } from './describe';
import type { ForwardSessionMirror, StopCause } from './session-mirror';
import type { SavedForward } from './store';
import type { ForwardSupervisor } from './supervisor';

/** What the manager needs of the node manager (tests pass a fake). */
export type ForwardNodes = Pick<
  NodeManager,
  'client' | 'dialer' | 'nodeName' | 'knowsNode' | 'onDidChange'
>;

export interface Definition {
  readonly id: string;
  /** Changed by `move`. */
  nodeId: string;
  /** The node's name as last known: what is shown once the node is removed. */
  nodeName: string;
  readonly spec: ForwardSpec;
  name: string | undefined;
  saved: boolean;
  autoStart: boolean;
}

export interface Run {
  readonly nodeId: string;
  readonly supervisor: ForwardSupervisor;
  /** The object handed to the supervisor: its snapshots carry it, which is how they are told apart. */
  readonly spec: ForwardSpec;
  readonly mirror: ForwardSessionMirror;
  readonly startedAt: number;
  forwardId: string | undefined;
  snapshot: ForwardSnapshot | undefined;
  /** Set when Porthole stops it (the user, a disconnect, shutdown), before it ends. */
  cause: StopCause | undefined;
  /** Settles once the run is active (resolves) or over (rejects). */
  started: Promise<void>;
}

export interface Entry {
  readonly def: Definition;
  run: Run | undefined;
  lastError: AppErrorData | undefined;
  /** The local ports the last run bound: the next run asks for them again where the spec says 0. */
  lastPorts: readonly number[] | undefined;
  /** The node connection this entry was auto-started for: once per connection. */
  autoStartedFor: NodeClient | undefined;
  /** Whether its node was known at the last node change (else it is orphaned). */
  nodeKnown?: boolean;
}

/** A saved forward as read from forwards.json, not running yet. */
export function entryOfSaved(saved: SavedForward): Entry {
  return {
    def: {
      id: saved.id,
      nodeId: saved.nodeId,
      nodeName: saved.nodeName ?? saved.nodeId,
      spec: saved.spec,
      name: saved.name,
      saved: true,
      autoStart: saved.autoStart,
    },
    run: undefined,
    lastError: undefined,
    lastPorts: undefined,
    autoStartedFor: undefined,
  };
}

export function savedOf(def: Definition): SavedForward {
  return {
    id: def.id,
    nodeId: def.nodeId,
    nodeName: def.nodeName,
    ...(def.name !== undefined && { name: def.name }),
    spec: def.spec,
    autoStart: def.autoStart,
  };
}

export function notFound(forwardId: string): AppError {
  return new AppError({
    code: 'not-found',
    message: `There is no forward "${forwardId}".`,
    hint: 'It may have been removed; the list updates by itself.',
  });
}

export function autoStartNeedsSave(): AppError {
  return new AppError({
    code: 'invalid-argument',
    message: 'Only a saved forward can start by itself.',
    hint: 'Save the forward to turn on auto-start.',
  });
}

/** The entry as the port-forwards view shows it. */
export function toForwardEntry(entry: Entry, nodes: ForwardNodes): ForwardEntry {
  const def = entry.def;
  const run = entry.run;
  const live: ForwardSnapshot | undefined =
    run === undefined
      ? undefined
      : run.snapshot !== undefined
        ? { ...run.snapshot, id: def.id, spec: def.spec }
        : {
            // Binding the local ports: the engine has not reported yet.
            id: def.id,
            spec: def.spec,
            state: { name: 'starting', reason: 'Opening the local ports.', since: run.startedAt },
            ports: [],
            metrics: {
              openConnections: 0,
              totalConnections: 0,
              failedConnections: 0,
              bytesIn: 0,
              bytesOut: 0,
            },
            connections: [],
          };
  const known = nodes.knowsNode(def.nodeId);
  return {
    id: def.id,
    nodeId: def.nodeId,
    nodeName: known ? nodes.nodeName(def.nodeId) : def.nodeName,
    ...(!known && { orphaned: true }),
    name: def.name ?? defaultForwardName(def.spec),
    spec: def.spec,
    saved: def.saved,
    autoStart: def.autoStart,
    ...(live !== undefined && { live }),
    ...(entry.lastError !== undefined && { lastError: entry.lastError }),
  };
}

/** The client of a connected node; undefined when it is not connected. */
export function connectedClient(nodes: ForwardNodes, nodeId: string): NodeClient | undefined {
  try {
    return nodes.client(nodeId);
  } catch {
    return undefined;
  }
}
