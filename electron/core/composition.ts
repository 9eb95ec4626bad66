/**
 * The core, wired: real discovery, real CRI clients, real SSH connections, settings in
 * the user's config directory. The Electron shell and the browser-mode host both start
 * from here, so the two modes run the same services.
 */
import { discoverEndpoints } from './base/connect';
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
}

export type Core = CoreServices;

export function createCore(options: CoreOptions = {}): Core {
  const env = options.env ?? process.env;
  const prompts = new PromptBroker({
    ...(options.promptTimeoutMs !== undefined && { timeoutMs: options.promptTimeoutMs }),
  });
  const core = createCoreServices({
    configDir: options.configDir ?? defaultConfigDir(env),
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
  // Discovery and auto-connect start at once; requests wait for them as needed.
  core.nodes.start().catch(() => undefined);
  return {
    ...core,
    dispose: () => {
      core.dispose();
      prompts.dispose();
    },
  };
}
