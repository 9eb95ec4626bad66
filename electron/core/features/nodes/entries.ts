/**
 * The nodes Porthole knows, as one list of entries: the profiles the user saved, then the
 * runtimes discovered on this machine that no profile already points at, then connected
 * nodes a later discovery no longer finds. Built once per change (a save, a discovery, a
 * connection opened or closed) and looked up by id, so a status costs O(1) to read.
 */
import type { DiscoveredEndpoint, NodeProfile, RuntimeInfo } from '../../../../shared/model';
import { parseEndpoint } from '../../base/cri';
import { sshAddress, sshConnectionKey } from './ssh';

export interface NodeEntry {
  readonly nodeId: string;
  readonly name: string;
  readonly origin: 'saved' | 'discovered';
  readonly kind: NodeProfile['kind'];
  /** Local nodes: the runtime socket. SSH nodes: `ssh://…`, for display. */
  readonly endpoint: string;
  readonly imageEndpoint?: string;
  readonly timeoutMs?: number;
  readonly profile?: NodeProfile;
  readonly discovered?: DiscoveredEndpoint;
}

/** A node discovered on this machine: its id is derived from the endpoint, so it is stable. */
export function discoveredNodeId(endpoint: string): string {
  return `local:${endpoint}`;
}

export interface EntrySources {
  readonly profiles: readonly NodeProfile[];
  readonly discovered: readonly DiscoveredEndpoint[];
  /** Entries of connected nodes, kept while they are connected. */
  readonly connected: ReadonlyMap<string, NodeEntry>;
  /** The runtime a connected node knows (names a discovered node whose runtime is down). */
  readonly runtimeOf: (nodeId: string) => RuntimeInfo | undefined;
}

/** Every entry, in list order, by id. */
export function buildEntries(sources: EntrySources): Map<string, NodeEntry> {
  const entries = new Map<string, NodeEntry>();
  for (const profile of sources.profiles) entries.set(profile.id, savedEntry(profile));
  const taken = new Set([...entries.values()].flatMap((entry) => [entry.nodeId, entry.endpoint]));
  for (const endpoint of sources.discovered) {
    // A well-known socket that doesn't exist is noise, and so is a lab that is down; a
    // socket the user configured is not.
    const noise =
      endpoint.probe.state === 'absent' &&
      (endpoint.source === 'well-known' || endpoint.source === 'lab');
    const nodeId = discoveredNodeId(endpoint.endpoint);
    if (noise || taken.has(endpoint.endpoint) || taken.has(nodeId)) continue;
    entries.set(nodeId, {
      nodeId,
      name: discoveredName(endpoint, sources.runtimeOf(nodeId)),
      origin: 'discovered',
      kind: 'local',
      endpoint: endpoint.endpoint,
      ...(endpoint.imageEndpoint !== endpoint.endpoint && {
        imageEndpoint: endpoint.imageEndpoint,
      }),
      ...(endpoint.timeoutMs !== undefined && { timeoutMs: endpoint.timeoutMs }),
      discovered: endpoint,
    });
  }
  // Connected nodes stay listed even if a later discovery no longer finds them.
  for (const [nodeId, entry] of sources.connected) {
    if (!entries.has(nodeId)) entries.set(nodeId, entry);
  }
  return entries;
}

function savedEntry(profile: NodeProfile): NodeEntry {
  const common = {
    nodeId: profile.id,
    name: profile.name,
    origin: 'saved' as const,
    ...(profile.timeoutMs !== undefined && { timeoutMs: profile.timeoutMs }),
    profile,
  };
  if (profile.kind === 'ssh') return { ...common, kind: 'ssh', endpoint: sshAddress(profile) };
  return {
    ...common,
    kind: 'local',
    endpoint: profile.endpoint,
    ...(profile.imageEndpoint !== undefined && { imageEndpoint: profile.imageEndpoint }),
  };
}

/**
 * "containerd (CONTAINER_RUNTIME_ENDPOINT)": the runtime that answered discovery, or, for
 * a connected node whose runtime is down as discovery runs again, the one it knows — a
 * node is not renamed because its runtime is restarting.
 */
function discoveredName(endpoint: DiscoveredEndpoint, known: RuntimeInfo | undefined): string {
  // A lab runtime's origin ("lab containerd-2") already says what it is.
  if (endpoint.source === 'lab') return endpoint.origin;
  const runtime = endpoint.probe.state === 'ready' ? endpoint.probe.info : known;
  return runtime === undefined ? endpoint.origin : `${runtime.runtimeName} (${endpoint.origin})`;
}

/** What decides whether a saved profile still describes the open connection. */
export function connectionKey(entry: NodeEntry): string {
  const profile = entry.profile;
  if (profile?.kind === 'ssh') return `ssh ${sshConnectionKey(profile)}`;
  return `local ${entry.endpoint} ${entry.imageEndpoint ?? ''}`;
}

/** A local node's runtime socket, when its endpoint is one Porthole can dial. */
export function localSocketPath(entry: NodeEntry | undefined): string | undefined {
  if (entry === undefined || entry.kind !== 'local') return undefined;
  try {
    return parseEndpoint(entry.endpoint).path;
  } catch {
    return undefined;
  }
}

/** How a runtime introduces itself, for "containerd 1.6.20 → 2.1.9". */
export function runtimeLabel(runtime: RuntimeInfo): string {
  return `${runtime.runtimeName} ${runtime.runtimeVersion}`;
}
