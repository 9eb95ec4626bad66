/**
 * The core, wired: real discovery, real CRI clients, real SSH connections, settings in
 * the user's config directory. The Electron shell and the browser-mode host both start
 * from here, so the two modes run the same services.
 */
import { join } from 'node:path';
import { DisposableStore } from '../../shared/lifecycle';
import { discoverEndpoints } from './base/connect';
import { log, LogFile, logger, parseLogLevel } from './base/log';
import { CriClient } from './base/cri';
import {
  createCoreServices,
  defaultConfigDir,
  PromptBroker,
  sshTargetOf,
  type CoreServices,
  type WatcherTimings,
} from './services';
import { SshNodeConnection, type SshConnectOptions } from './base/ssh';

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
}

export type Core = CoreServices;

export function createCore(options: CoreOptions = {}): Core {
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? defaultConfigDir(env);
  const owned = new DisposableStore();
  log.setLevel(parseLogLevel(env.PORTHOLE_LOG_LEVEL) ?? 'info');
  const logFile = options.logFile === false ? undefined : openLogFile(configDir);
  if (logFile !== undefined) owned.add(log.attach(owned.add(logFile)));
  const prompts = owned.add(
    new PromptBroker({
      ...(options.promptTimeoutMs !== undefined && { timeoutMs: options.promptTimeoutMs }),
    }),
  );
  const core = createCoreServices({
    configDir,
    ...(logFile !== undefined && { logFile: logFile.path }),
    ...(options.appVersion !== undefined && { appVersion: options.appVersion }),
    env,
    discover: discoverEndpoints,
    createClient: (clientOptions) => CriClient.create(clientOptions),
    openSsh: (profile, { confirmHostKey, askPassphrase, signal }) =>
      SshNodeConnection.connect({
        ...options.ssh,
        target: sshTargetOf(profile),
        confirmHostKey,
        askPassphrase,
        signal,
      }),
    prompts,
    ...(options.watcherTimings !== undefined && { watcherTimings: options.watcherTimings }),
  });
  const coreLog = logger('core');
  const { node, electron } = process.versions as NodeJS.ProcessVersions & { electron?: string };
  coreLog.info(
    `Porthole${options.appVersion !== undefined ? ` ${options.appVersion}` : ''} started: ` +
      `Node ${node}${electron !== undefined ? `, Electron ${electron}` : ''}.`,
  );
  // Discovery and auto-connect start at once; requests wait for them as needed.
  core.nodes.start().catch((error: unknown) => coreLog.error('Discovery failed to start.', error));
  return {
    ...core,
    dispose: () => {
      core.dispose();
      // The prompts, then the log file last, so the shutdown's own entries reach it.
      owned.dispose();
    },
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
