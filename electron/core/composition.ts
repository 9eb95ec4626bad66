/**
 * The core's one composition root: the contract's services and events over one
 * NodeManager, with real discovery, real CRI clients, real SSH connections and settings in
 * the user's config directory. The Electron shell and the browser-mode host both start
 * from here, so the two modes run the same services; unit tests start here too, with the
 * node seams (`discover`, `createClient`, `openSsh`) swapped for fakes.
 */
import { join } from 'node:path';
import type { EventSource, ServiceHandlers } from '../../shared/contract';
import { setListenerErrorHandler } from '../../shared/event';
import { DisposableStore, type Disposable } from '../../shared/lifecycle';
import { defaultConfigDir } from './base/config';
import { discoverEndpoints } from './base/connect';
import { CriClient } from './base/cri';
import { log, LogFile, logger, parseLogLevel, RecentLog } from './base/log';
import { SshNodeConnection, type SshConnectOptions } from './base/ssh';
import { DebugManager, DebugServiceImpl } from './features/debug';
import { DiagnosticsServiceImpl } from './features/diagnostics';
import { FanoutManager, FanoutServiceImpl, fanoutEventSource } from './features/fanout';
import {
  FilesManager,
  FilesServiceImpl,
  transfersEventSource,
  type DownloadBody,
} from './features/files';
import { ForwardManager, ForwardsServiceImpl, forwardsEventSource } from './features/forwards';
import { LogsServiceImpl } from './features/logs';
import {
  NodeManager,
  NodesServiceImpl,
  PromptBroker,
  createEventSource,
  nodeFiles,
  sshTargetOf,
  type NodeManagerOptions,
  type WatcherTimings,
} from './features/nodes';
import { LifecycleServiceImpl, ResourcesServiceImpl } from './features/resources';
import { SessionRegistry, SessionsServiceImpl, sessionsEventSource } from './features/sessions';
import { StatsHub, statsEventSource } from './features/stats';
import { TimelineRecorder, TimelineServiceImpl, timelineEventSource } from './features/timeline';
import { TerminalManager, TerminalsServiceImpl, terminalEventSource } from './features/terminals';

/** SSH settings for every SSH node (tests point these at their own files). */
export type CoreSshOptions = Omit<
  SshConnectOptions,
  'target' | 'confirmHostKey' | 'askPassphrase' | 'signal'
>;

export interface CoreOptions {
  /** Default `$XDG_CONFIG_HOME/porthole` or `~/.config/porthole`. */
  readonly configDir?: string;
  /** Environment for discovery (CONTAINER_RUNTIME_ENDPOINT…); default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly watcherTimings?: Partial<WatcherTimings>;
  /** ssh_config and known_hosts files, agent, reconnect backoff…; ssh's defaults otherwise. */
  readonly ssh?: CoreSshOptions;
  /** How long a host key or passphrase question waits for an answer; default 5 minutes. */
  readonly promptTimeoutMs?: number;
  /** The app's version, for Diagnostics' report. */
  readonly appVersion?: string;
  /**
   * The log file: `<configDir>/logs/porthole.log` (default), or none (`false`). Its level
   * is PORTHOLE_LOG_LEVEL's (debug, info, warn, error), default info.
   */
  readonly logFile?: boolean;
  /** Finds this machine's runtimes; default the real discovery. */
  readonly discover?: NodeManagerOptions['discover'];
  /** Makes a node's CRI client; default a real gRPC client. */
  readonly createClient?: NodeManagerOptions['createClient'];
  /** Opens an SSH node's connection; default a real one with the `ssh` settings. */
  readonly openSsh?: NodeManagerOptions['openSsh'];
}

export interface Core extends Disposable {
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  readonly nodes: NodeManager;
  readonly sessions: SessionRegistry;
  /**
   * A prepared download's bytes (`files.download`), for the browser-mode host and
   * Electron's app protocol to stream to the page; undefined for an unknown or spent id.
   */
  readonly downloads: (transferId: string) => Promise<DownloadBody | undefined>;
  readonly timeline: TimelineRecorder;
}

export function createCore(options: CoreOptions = {}): Core {
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? defaultConfigDir(env);
  // Disposed newest first: the features' sessions before the registry, nodes, the recent
  // log, the questions the nodes' connection attempts were asking, and the log file last,
  // so the shutdown's own entries reach it.
  const store = new DisposableStore();
  log.setLevel(parseLogLevel(env.PORTHOLE_LOG_LEVEL) ?? 'info');
  const coreLog = logger('core');
  // A listener's bug is isolated by Emitter.fire; the log has it.
  store.add(setListenerErrorHandler((error) => coreLog.error('A listener failed.', error)));
  const logFile = options.logFile === false ? undefined : openLogFile(configDir);
  if (logFile !== undefined) store.add(log.attach(store.add(logFile)));
  const prompts = store.add(
    new PromptBroker({
      ...(options.promptTimeoutMs !== undefined && { timeoutMs: options.promptTimeoutMs }),
    }),
  );
  // Attached before the features, detached after them: what they log while they shut down
  // is kept for Diagnostics.
  const recent = new RecentLog();
  store.add(log.attach(recent));
  const nodes = store.add(
    new NodeManager({
      configDir,
      env,
      discover: options.discover ?? discoverEndpoints,
      createClient: options.createClient ?? ((clientOptions) => CriClient.create(clientOptions)),
      openSsh:
        options.openSsh ??
        ((profile, { confirmHostKey, askPassphrase, signal }) =>
          SshNodeConnection.connect({
            ...options.ssh,
            target: sshTargetOf(profile),
            confirmHostKey,
            askPassphrase,
            signal,
          })),
      prompts,
      ...(options.watcherTimings !== undefined && { watcherTimings: options.watcherTimings }),
    }),
  );
  const sessions = store.add(new SessionRegistry());
  const logs = store.add(new LogsServiceImpl(nodes, sessions));
  const terminals = store.add(new TerminalManager({ nodes, sessions }));
  const stats = store.add(new StatsHub(nodes));
  const forwards = store.add(new ForwardManager({ nodes, sessions, configDir }));
  const debug = store.add(
    new DebugManager({
      nodes,
      sessions,
      files: (nodeId) => nodeFiles(nodes, nodeId),
      configDir,
    }),
  );
  const fanout = store.add(new FanoutManager({ nodes, sessions }));
  const files = store.add(new FilesManager({ nodes, sessions, debug }));
  const timeline = store.add(new TimelineRecorder({ nodes, configDir }));
  const { node, electron } = process.versions as NodeJS.ProcessVersions & { electron?: string };
  coreLog.info(
    `Porthole${options.appVersion !== undefined ? ` ${options.appVersion}` : ''} started: ` +
      `Node ${node}${electron !== undefined ? `, Electron ${electron}` : ''}.`,
  );
  // Discovery and auto-connect start at once; requests wait for them as needed.
  nodes.start().catch((error: unknown) => coreLog.error('Discovery failed to start.', error));
  return {
    services: {
      nodes: new NodesServiceImpl(nodes, forwards),
      resources: new ResourcesServiceImpl(nodes),
      lifecycle: new LifecycleServiceImpl(nodes),
      sessions: new SessionsServiceImpl(sessions),
      logs,
      terminals: new TerminalsServiceImpl(terminals),
      forwards: new ForwardsServiceImpl(forwards),
      debug: new DebugServiceImpl(debug),
      diagnostics: new DiagnosticsServiceImpl({
        recent,
        nodes: () => nodes.statuses(),
        ...(logFile !== undefined && { logFile: logFile.path }),
        ...(options.appVersion !== undefined && { appVersion: options.appVersion }),
      }),
      fanout: new FanoutServiceImpl(fanout),
      files: new FilesServiceImpl(files),
      timeline: new TimelineServiceImpl(timeline),
    },
    events: {
      ...createEventSource(nodes),
      sessions: sessionsEventSource(sessions),
      logs: logs.events,
      terminal: terminalEventSource(terminals),
      stats: statsEventSource(stats),
      forwards: forwardsEventSource(forwards),
      fanout: fanoutEventSource(fanout),
      transfers: transfersEventSource(files),
      timeline: timelineEventSource(timeline),
    },
    nodes,
    sessions,
    downloads: (transferId) => files.openDownload(transferId),
    timeline,
    dispose: () => store.dispose(),
  };
}

/**
 * The log file in `<configDir>/logs`, or none when its folder can't be made (a read-only
 * home): Porthole runs without it, and Diagnostics still shows the recent entries.
 */
function openLogFile(configDir: string): LogFile | undefined {
  try {
    return new LogFile({ dir: join(configDir, 'logs') });
  } catch (error) {
    process.emitWarning(`Porthole writes no log file: ${String(error)}`);
    return undefined;
  }
}
