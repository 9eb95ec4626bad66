/**
 * Debug containers: starts a toolbox container in a target's pod and PID namespace, owns
 * it while its terminals run, and stops and removes it when the last one ends, unless the
 * user keeps it. The terminals themselves are ordinary exec terminals (features/terminals):
 * the manager watches the session monitor for sessions into its containers, so a split
 * pane, a reopen or the monitor's kill all count, and nothing in the terminals knows about
 * debugging. Every debug container carries a label, so one this Porthole does not own (a
 * crash, a quit with one open) is recognised as a leftover and offered for removal.
 */
import { posix } from 'node:path';
import { AppError, isAppError } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import {
  defaultDebugImage,
  type ContainerDetail,
  type DebugContainer,
  type DebugStartRequest,
  type DebugStarted,
  type DebugStatus,
  type NamespaceMode,
  type PodSandboxDetail,
  type SessionSnapshot,
} from '../../../../shared/model';
import type { NodeFiles } from '../../base/files';
import { logger } from '../../base/log';
import type { NodeClient, NodeManager } from '../nodes';
import type { SessionRegistry } from '../sessions';
import { runningContainer } from '../terminals';
import {
  createRefused,
  pullRefused,
  sandboxGone,
  startRefused,
  targetRefusals,
  targetUnsupported,
} from './refusals';
import {
  debugBanner,
  debugContainerConfig,
  debugContainerName,
  debugLabels,
  hostPidOf,
  isDebugContainer,
  pidModeOf,
  sandboxConfigOf,
  targetArgs,
} from './spec';

const debugLog = logger('debug');

export interface DebugManagerOptions {
  readonly nodes: Pick<NodeManager, 'client' | 'nodeName' | 'refreshResources'>;
  readonly sessions: Pick<SessionRegistry, 'onDidChange' | 'list'>;
  /** The node's files, for the debug container's log directory. */
  readonly files: (nodeId: string) => NodeFiles;
  /**
   * How long a started debug container waits for its first terminal before it is removed
   * (the page that asked went away). Default one minute.
   */
  readonly unclaimedMs?: number;
}

interface Owned {
  readonly nodeId: string;
  readonly containerId: string;
  kept: boolean;
  /** A terminal into it was seen: when none is left, it goes. */
  claimed: boolean;
  /** Cleaning it up failed (the node went away): it is a leftover now. */
  abandoned: boolean;
  removing: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** What a ExecSync check may take; a toolbox answers `cat` at once. */
const checkTimeoutSeconds = 10;

export class DebugManager implements Disposable {
  private readonly owned = new Map<string, Owned>();
  private readonly watching: Disposable;
  private readonly unclaimedMs: number;
  private disposed = false;

  constructor(private readonly options: DebugManagerOptions) {
    this.unclaimedMs = options.unclaimedMs ?? 60_000;
    this.watching = options.sessions.onDidChange((sessions) => this.sessionsChanged(sessions));
  }

  async start(request: DebugStartRequest, signal?: AbortSignal): Promise<DebugStarted> {
    const { nodeId, targetId } = request;
    const client = this.options.nodes.client(nodeId);
    const nodeName = this.options.nodes.nodeName(nodeId);
    const runtime = `The runtime on ${nodeName}`;
    const call = signal !== undefined ? { signal } : {};
    const target = await runningContainer(client, targetId, nodeName, signal, targetRefusals);
    const targetName = target.name || targetId.slice(0, 12);
    const pod = await client
      .podStatus(target.podSandboxId, { ...call, verbose: true })
      .catch((error: unknown) => {
        if (isAppError(error) && error.code === 'not-found')
          throw sandboxGone(targetName, undefined);
        throw error;
      });
    if (pod.state !== 'ready') throw sandboxGone(targetName, 'stopped');
    const sandboxConfig = sandboxConfigOf(pod);
    const image = request.image ?? defaultDebugImage;
    let pulled = false;
    if ((await client.imageStatus(image, call)) === undefined) {
      await client.pullImage(image, undefined, sandboxConfig, call).catch((error: unknown) => {
        throw pullRefused(error, image);
      });
      pulled = true;
    }
    const name = debugContainerName();
    const logs = await this.logDirectoryReady(nodeId, sandboxConfig.logDirectory, name);
    const config = debugContainerConfig({ name, image, target, keep: request.keep === true, logs });
    let containerId: string;
    try {
      containerId = await client.createContainer(pod.id, config, sandboxConfig, call);
    } catch (error) {
      throw createRefused(error, targetName, runtime);
    }
    // Owned from here: whatever fails next, it is removed again.
    const owned = this.own(nodeId, containerId, request.keep === true);
    try {
      try {
        await client.startContainer(containerId, call);
      } catch (error) {
        throw startRefused(error, runtime);
      }
      const mode = pidModeOf(target);
      const targetPid = await this.targetPid(client, containerId, target, mode, runtime);
      const started: DebugStarted = {
        container: toDebugContainer(
          nodeId,
          { ...target, id: containerId, name, image, labels: config.labels ?? {} },
          this.statusOf(nodeId, containerId, config.labels ?? {}),
          podName(pod),
          'running',
        ),
        ...(targetPid !== undefined && { targetPid }),
        banner: debugBanner({ targetName, debugName: name, image, mode, targetPid }),
        pulled,
      };
      debugLog.info(`Debug container ${name} started beside ${targetName} on ${nodeName}.`);
      return started;
    } catch (error) {
      await this.cleanUp(owned);
      throw error;
    } finally {
      await this.options.nodes.refreshResources(nodeId);
    }
  }

  /** The node's debug containers (by label), this Porthole's and others'. */
  async list(nodeId: string, signal?: AbortSignal): Promise<DebugContainer[]> {
    const client = this.options.nodes.client(nodeId);
    const call = signal !== undefined ? { signal } : {};
    const [containers, pods] = await Promise.all([
      client.listContainers({ labels: { [debugLabels.marker]: 'true' } }, call),
      client.listPods({}, call),
    ]);
    const pod = new Map(pods.map((p) => [p.id, p]));
    return containers
      .filter((container) => isDebugContainer(container.labels))
      .map((container) => {
        const sandbox = pod.get(container.podSandboxId);
        return toDebugContainer(
          nodeId,
          container,
          this.statusOf(nodeId, container.id, container.labels),
          sandbox !== undefined ? podName(sandbox) : undefined,
          container.state,
        );
      })
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async keep(
    nodeId: string,
    containerId: string,
    keep: boolean,
    signal?: AbortSignal,
  ): Promise<DebugContainer> {
    const detail = await this.debugContainer(nodeId, containerId, signal);
    // A leftover, or one kept by its label, is this Porthole's from now on.
    const owned = this.owned.get(key(nodeId, containerId)) ?? this.own(nodeId, containerId, keep);
    clearTimeout(owned.timer);
    owned.claimed = true;
    owned.kept = keep;
    // Let go with no terminal into it: nothing will end it, so it is offered for removal.
    owned.abandoned = !keep && !this.hasTerminal(nodeId, containerId);
    const pod = await this.options.nodes
      .client(nodeId)
      .podStatus(detail.podSandboxId, signal !== undefined ? { signal } : {})
      .catch(() => undefined);
    return toDebugContainer(
      nodeId,
      detail,
      this.statusOf(nodeId, containerId, detail.labels),
      pod !== undefined ? podName(pod) : undefined,
      detail.state,
    );
  }

  /** Stops and removes one; refuses a container that is not a debug container. */
  async remove(nodeId: string, containerId: string, signal?: AbortSignal): Promise<void> {
    await this.debugContainer(nodeId, containerId, signal);
    const owned = this.owned.get(key(nodeId, containerId)) ?? this.own(nodeId, containerId, false);
    await this.cleanUp(owned, true);
    await this.options.nodes.refreshResources(nodeId);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.watching.dispose();
    for (const owned of this.owned.values()) clearTimeout(owned.timer);
    // Not removed here: the nodes close with the core. Their label makes them leftovers
    // the next Porthole offers to remove.
    this.owned.clear();
  }

  private own(nodeId: string, containerId: string, kept: boolean): Owned {
    const owned: Owned = {
      nodeId,
      containerId,
      kept,
      claimed: false,
      abandoned: false,
      removing: false,
      timer: undefined,
    };
    owned.timer = setTimeout(() => {
      owned.timer = undefined;
      if (!owned.claimed && !owned.kept) {
        debugLog.info(`Debug container ${containerId.slice(0, 12)} had no terminal: removing it.`);
        void this.cleanUp(owned);
      }
    }, this.unclaimedMs);
    owned.timer.unref();
    this.owned.set(key(nodeId, containerId), owned);
    return owned;
  }

  private statusOf(
    nodeId: string,
    containerId: string,
    labels: Readonly<Record<string, string>>,
  ): DebugStatus {
    const owned = this.owned.get(key(nodeId, containerId));
    if (owned !== undefined) return owned.kept ? 'kept' : owned.abandoned ? 'leftover' : 'active';
    return labels[debugLabels.keep] === 'true' ? 'kept' : 'leftover';
  }

  private hasTerminal(
    nodeId: string,
    containerId: string,
    sessions = this.options.sessions.list(),
  ): boolean {
    return sessions.some(
      (session) =>
        session.nodeId === nodeId &&
        session.target.containerId === containerId &&
        (session.kind === 'exec' || session.kind === 'attach') &&
        session.state !== 'ended' &&
        session.state !== 'failed',
    );
  }

  private sessionsChanged(sessions: readonly SessionSnapshot[]): void {
    for (const owned of this.owned.values()) {
      if (owned.removing) continue;
      const live = this.hasTerminal(owned.nodeId, owned.containerId, sessions);
      if (live) {
        // One that could not be removed (its node blipped) is ours again once a terminal
        // opens in it: removed when that one ends.
        owned.abandoned = false;
        owned.claimed = true;
        clearTimeout(owned.timer);
        owned.timer = undefined;
      } else if (owned.claimed && !owned.kept && !owned.abandoned) {
        void this.cleanUp(owned);
      }
    }
  }

  /** Stops (no grace: a toolbox shell has nothing to save) and removes it. */
  private async cleanUp(owned: Owned, rethrow = false): Promise<void> {
    if (owned.removing) return;
    owned.removing = true;
    clearTimeout(owned.timer);
    const id = key(owned.nodeId, owned.containerId);
    try {
      const client = this.options.nodes.client(owned.nodeId);
      await client.stopContainer(owned.containerId, 0);
      await client.removeContainer(owned.containerId);
      this.owned.delete(id);
      await this.options.nodes.refreshResources(owned.nodeId);
    } catch (error) {
      if (isAppError(error) && error.code === 'not-found') {
        this.owned.delete(id);
        return;
      }
      owned.removing = false;
      owned.abandoned = true;
      debugLog.warn(
        `Debug container ${owned.containerId.slice(0, 12)} could not be removed: it is a leftover now.`,
        error,
      );
      if (rethrow) throw error;
    }
  }

  /** The debug container's log goes beside the pod's others, when the pod has a directory. */
  private async logDirectoryReady(
    nodeId: string,
    logDirectory: string | undefined,
    name: string,
  ): Promise<boolean> {
    if (logDirectory === undefined || !posix.isAbsolute(logDirectory)) return false;
    try {
      // CRI-O and conmon don't create it, and fail without it (as runFromSpec knows).
      await this.options.files(nodeId).makeDirectory(posix.join(logDirectory, name));
      return true;
    } catch (error) {
      debugLog.warn(
        `The debug container's log directory could not be made: it logs nowhere.`,
        error,
      );
      return false;
    }
  }

  /**
   * The target's main process as the debug container sees it, and proof that the runtime
   * honoured TARGET: pid 1 there must be the target's own process, not the toolbox's. A
   * toolbox without `cat` can't be asked; then pid 1 is taken on trust.
   */
  private async targetPid(
    client: NodeClient,
    containerId: string,
    target: ContainerDetail,
    mode: NamespaceMode,
    runtime: string,
  ): Promise<number | undefined> {
    if (mode === 'node') return hostPidOf(target);
    const args = targetArgs(target);
    const decoder = new TextDecoder();
    if (mode !== 'pod') {
      const seen = await client
        .execSync(containerId, ['cat', '/proc/1/cmdline'], checkTimeoutSeconds)
        .catch(() => undefined);
      if (seen === undefined || seen.exitCode !== 0 || args === undefined) return 1;
      const pid1 = decoder.decode(seen.stdout).split('\0').filter(Boolean);
      if (pid1.join('\0') === args.join('\0')) return 1;
      throw targetUnsupported(
        runtime,
        target.name,
        `pid 1 in the debug container runs ${JSON.stringify(pid1)}, not the target's ${JSON.stringify(args)}.`,
      );
    }
    if (args === undefined) return undefined;
    // A shared namespace: the target's process is the one running its argv.
    const script =
      'for p in /proc/[0-9]*; do [ -r "$p/cmdline" ] && { printf "%s " "${p#/proc/}"; tr "\\0" "\\1" < "$p/cmdline"; echo; }; done';
    const listed = await client
      .execSync(containerId, ['sh', '-c', script], checkTimeoutSeconds)
      .catch(() => undefined);
    if (listed === undefined || listed.exitCode !== 0) return undefined;
    const wanted = args.join('\x01');
    for (const line of decoder.decode(listed.stdout).split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0 && trimSeparator(line.slice(space + 1)) === wanted) {
        return Number(line.slice(0, space));
      }
    }
    return undefined;
  }

  private async debugContainer(
    nodeId: string,
    containerId: string,
    signal?: AbortSignal,
  ): Promise<ContainerDetail> {
    const detail = await this.options.nodes
      .client(nodeId)
      .containerStatus(containerId, signal !== undefined ? { signal } : {});
    if (!isDebugContainer(detail.labels)) {
      throw new AppError({
        code: 'permission-denied',
        message: `${detail.name || containerId.slice(0, 12)} is not a Porthole debug container: it is left alone.`,
        hint: 'Remove other containers from Containers.',
      });
    }
    return detail;
  }
}

/** cmdline ends with a NUL, which the script turned into \x01. */
function trimSeparator(text: string): string {
  return text.endsWith('\x01') ? text.slice(0, -1) : text;
}

function key(nodeId: string, containerId: string): string {
  return `${nodeId}\n${containerId}`;
}

function podName(pod: Pick<PodSandboxDetail, 'name' | 'namespace'>): string {
  return pod.namespace !== '' ? `${pod.namespace}/${pod.name}` : pod.name;
}

function toDebugContainer(
  nodeId: string,
  container: Pick<
    ContainerDetail,
    'id' | 'name' | 'podSandboxId' | 'image' | 'labels' | 'createdAt'
  >,
  status: DebugStatus,
  pod: string | undefined,
  state: DebugContainer['state'],
): DebugContainer {
  return {
    nodeId,
    containerId: container.id,
    containerName: container.name,
    podSandboxId: container.podSandboxId,
    ...(pod !== undefined && { podName: pod }),
    targetId: container.labels[debugLabels.targetId] ?? '',
    targetName: container.labels[debugLabels.targetName] ?? '',
    image: container.image,
    state,
    status,
    createdAt: container.createdAt,
  };
}
