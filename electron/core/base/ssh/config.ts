/**
 * ssh_config resolution: what `ssh <host>` would use for one host, from ~/.ssh/config and
 * /etc/ssh/ssh_config (first value wins, user file first), computed by the `ssh-config`
 * library. That library parses `Include` but does not read the files, so includes are
 * expanded here first (see include.ts).
 *
 * Deliberate differences from ssh(1), all on the safe side:
 * - `Match exec` is never run (no commands spawned from config files); such blocks don't match.
 * - ProxyCommand is refused with a clear error rather than run or ignored.
 * - CanonicalizeHostName is ignored with a warning (the library would run nslookup).
 * - Names (the alias, HostName, HostKeyAlias) must be plain host names (host-name.ts).
 * - Relative IdentityFile paths resolve against the home directory (an app has no useful cwd).
 */
import { readFile } from 'node:fs/promises';
import { homedir, hostname, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import SSHConfig from 'ssh-config';
import { AppError } from '../../../../shared/errors';
import { hostNameHint, hostNameProblem } from './host-name';
import { expandIncludes } from './include';

export interface SshEnvironment {
  readonly homeDir: string;
  readonly localUser: string;
}

export function defaultEnvironment(): SshEnvironment {
  let localUser = process.env.USER ?? '';
  try {
    localUser = userInfo().username;
  } catch {
    // No passwd entry (some containers): keep $USER.
  }
  return { homeDir: homedir(), localUser };
}

/** The user's config, then the system-wide one, as ssh reads them. */
export function defaultConfigPaths(env: SshEnvironment): string[] {
  return [join(env.homeDir, '.ssh', 'config'), '/etc/ssh/ssh_config'];
}

/** Parsed config files (includes expanded), ready for `resolveHost`. */
export interface LoadedSshConfig {
  readonly config: SSHConfig;
  /** Problems worth showing that did not stop loading (an unreadable include…). */
  readonly warnings: readonly string[];
}

export async function loadSshConfig(
  paths: readonly string[],
  env: SshEnvironment,
): Promise<LoadedSshConfig> {
  const warnings: string[] = [];
  const parts: string[] = [];
  for (const [index, path] of paths.entries()) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        warnings.push(`Could not read ${path}: ${(error as Error).message}`);
      }
      continue;
    }
    // Relative includes: ~/.ssh for the user's file, /etc/ssh for the system's (ssh(1)).
    const includeBase = index === 0 ? join(env.homeDir, '.ssh') : '/etc/ssh';
    parts.push(await expandIncludes(text, { path, includeBase, homeDir: env.homeDir, warnings }));
  }
  // `Match all` between files: a trailing Host block of one file must not swallow the
  // top-level lines of the next.
  const config = SSHConfig.parse(parts.join('\nMatch all\n'));
  dropCanonicalization(config, warnings);
  return { config, warnings };
}

/**
 * Removes every `CanonicalizeHostName` (other than `no`) before the config is computed:
 * for it, the ssh-config library runs `nslookup` synchronously, once per CanonicalDomains
 * entry, on the thread that serves the UI. Porthole spawns nothing from config files, so
 * names are used as written (the system resolver still applies its search domains when
 * connecting), and the connection says so in its warnings.
 */
function dropCanonicalization(config: SSHConfig, warnings: string[]): void {
  for (let index = config.length - 1; index >= 0; index -= 1) {
    const line = config[index]!;
    if (line.type !== SSHConfig.DIRECTIVE) continue;
    if ('config' in line) {
      dropCanonicalization(line.config, warnings);
      continue;
    }
    if (!/^CanonicalizeHostName$/i.test(line.param)) continue;
    const value =
      typeof line.value === 'string' ? line.value : line.value.map((v) => v.val).join(' ');
    config.splice(index, 1);
    if (/^no$/i.test(value)) continue;
    warnings.push(
      `CanonicalizeHostName ${value} in the SSH config is ignored: Porthole does not look host names up while reading it. Give the full name as HostName where it matters.`,
    );
  }
}

/** What the user asked for: an alias or host name, and overrides (like ssh's options). */
export interface HostRequest {
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
  readonly identityFiles?: readonly string[];
  readonly identitiesOnly?: boolean;
  readonly proxyJump?: string;
}

/** One SSH server to log in to, fully resolved. */
export interface ResolvedHost {
  /** What was asked for (the alias). */
  readonly alias: string;
  /** Where to connect. */
  readonly hostName: string;
  readonly port: number;
  readonly user: string;
  /** Expanded paths, in the order to try; ssh's defaults when none is configured. */
  readonly identityFiles: readonly string[];
  /** Whether `identityFiles` came from configuration (defaults are only tried if present). */
  readonly identityFilesConfigured: boolean;
  readonly identitiesOnly: boolean;
  /** IdentityAgent: a socket path, `none`, or undefined for SSH_AUTH_SOCK. */
  readonly identityAgent?: string;
  /** The name known_hosts uses: HostKeyAlias, or the HostName. */
  readonly knownHostsName: string;
  readonly userKnownHostsFiles: readonly string[];
  readonly globalKnownHostsFiles: readonly string[];
  readonly hashKnownHosts: boolean;
  /** StrictHostKeyChecking yes: unknown keys are refused without asking. */
  readonly strictHostKeyChecking: boolean;
  readonly keepaliveIntervalSeconds?: number;
  readonly keepaliveCountMax?: number;
  readonly connectTimeoutSeconds?: number;
  /** Raw ProxyJump value (`none` already removed). */
  readonly proxyJump?: string;
}

const defaultIdentityNames = [
  'id_rsa',
  'id_ecdsa',
  'id_ecdsa_sk',
  'id_ed25519',
  'id_ed25519_sk',
  'id_xmss',
  'id_dsa',
];

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function yes(value: string | undefined): boolean {
  return value !== undefined && /^(yes|true)$/i.test(value);
}

function parsePort(value: string | number | undefined, where: string): number | undefined {
  if (value === undefined) return undefined;
  const port = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AppError({
      code: 'invalid-argument',
      message: `${where}: "${value}" is not a port.`,
    });
  }
  return port;
}

function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** ssh's TOKENS for paths: %d %u %l %h %r %p %n %%, plus a leading `~`. */
export function expandPath(
  raw: string,
  env: SshEnvironment,
  host?: { hostName: string; user: string; port: number; alias: string },
): string {
  let value = raw.replace(/%(.)/g, (whole, token: string) => {
    switch (token) {
      case '%':
        return '%';
      case 'd':
        return env.homeDir;
      case 'u':
        return env.localUser;
      case 'l':
        return hostname().split('.')[0] ?? '';
      case 'h':
        return host?.hostName ?? whole;
      case 'r':
        return host?.user ?? whole;
      case 'p':
        return host === undefined ? whole : String(host.port);
      case 'n':
        return host?.alias ?? whole;
      default:
        return whole;
    }
  });
  if (value === '~' || value.startsWith('~/')) value = join(env.homeDir, value.slice(1));
  return isAbsolute(value) ? value : join(env.homeDir, value);
}

/**
 * Resolves one host as ssh would: the request's fields first (like command-line options),
 * then the config's first values, then ssh's defaults.
 */
export function resolveHost(
  loaded: LoadedSshConfig,
  request: HostRequest,
  env: SshEnvironment,
): ResolvedHost {
  const alias = request.host.trim();
  const aliasProblem = hostNameProblem(alias);
  if (aliasProblem !== undefined) {
    throw new AppError({
      code: 'invalid-argument',
      message: `"${request.host}" is not a host name or ssh_config alias: it ${aliasProblem}.`,
      hint: hostNameHint,
    });
  }
  const computed = loaded.config.compute(
    { Host: alias, ...(request.user !== undefined && { User: request.user }) },
    { ignoreCase: true, matchExec: false },
  );
  const get = (name: string): string | undefined => first(computed[name]);

  if (get('proxycommand') !== undefined && !/^none$/i.test(get('proxycommand')!)) {
    throw new AppError({
      code: 'unimplemented',
      message: `The SSH config for ${alias} uses ProxyCommand, which Porthole does not run.`,
      hint: 'Use ProxyJump for bastion hosts, or set ProxyCommand none for this host.',
    });
  }

  const hostName = resolvedName('HostName', get('hostname')?.replace(/%h/g, alias) ?? alias, alias);
  const knownHostsName = resolvedName('HostKeyAlias', get('hostkeyalias') ?? hostName, alias);
  const port = request.port ?? parsePort(get('port'), `Port for ${alias}`) ?? 22;
  const user = request.user ?? get('user') ?? env.localUser;
  const tokens = { hostName, user, port, alias };

  const explicit = (request.identityFiles ?? []).map((p) => expandPath(p, env, tokens));
  const configured = list(computed.identityfile)
    .filter((p) => !/^none$/i.test(p))
    .map((p) => expandPath(p, env, tokens));
  const identityFilesConfigured = explicit.length + configured.length > 0;
  const identityFiles = identityFilesConfigured
    ? [...new Set([...explicit, ...configured])]
    : defaultIdentityNames.map((name) => join(env.homeDir, '.ssh', name));

  const userKnownHosts = list(computed.userknownhostsfile).flatMap((v) => v.split(/\s+/));
  const globalKnownHosts = list(computed.globalknownhostsfile).flatMap((v) => v.split(/\s+/));
  const proxyJump = request.proxyJump ?? get('proxyjump');
  const identityAgent = get('identityagent');

  return {
    alias,
    hostName,
    port,
    user,
    identityFiles,
    identityFilesConfigured,
    identitiesOnly: request.identitiesOnly ?? yes(get('identitiesonly')),
    ...(identityAgent !== undefined && {
      identityAgent: /^none$/i.test(identityAgent)
        ? 'none'
        : identityAgent === 'SSH_AUTH_SOCK'
          ? undefined
          : expandPath(identityAgent, env, tokens),
    }),
    knownHostsName,
    userKnownHostsFiles: (userKnownHosts.length > 0
      ? userKnownHosts
      : ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']
    ).map((p) => expandPath(p, env, tokens)),
    globalKnownHostsFiles: (globalKnownHosts.length > 0
      ? globalKnownHosts
      : ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']
    ).map((p) => expandPath(p, env, tokens)),
    hashKnownHosts: yes(get('hashknownhosts')),
    strictHostKeyChecking: yes(get('stricthostkeychecking')),
    ...optionalNumber('keepaliveIntervalSeconds', parseSeconds(get('serveraliveinterval'))),
    ...optionalNumber('keepaliveCountMax', parseSeconds(get('serveralivecountmax'))),
    ...optionalNumber('connectTimeoutSeconds', parseSeconds(get('connecttimeout'))),
    ...(proxyJump !== undefined && !/^none$/i.test(proxyJump) && { proxyJump }),
  };
}

/**
 * A name the config resolved to (HostName, HostKeyAlias) obeys the same grammar as the
 * name the user gave: it is what known_hosts is searched for and written with.
 */
function resolvedName(option: string, value: string, alias: string): string {
  const problem = hostNameProblem(value);
  if (problem === undefined) return value;
  throw new AppError({
    code: 'invalid-argument',
    message: `The SSH config gives ${alias} the ${option} "${value}", which ${problem}; Porthole refused to use it.`,
    hint: hostNameHint,
  });
}

function optionalNumber<K extends string>(
  key: K,
  value: number | undefined,
): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

/** One ProxyJump hop: `[user@]host[:port]` or `ssh://[user@]host[:port]`, IPv6 in brackets. */
export function parseJumpHop(raw: string): { host: string; user?: string; port?: number } {
  const text = raw.trim().replace(/^ssh:\/\//i, '');
  const at = text.lastIndexOf('@');
  const user = at >= 0 ? text.slice(0, at) : undefined;
  const rest = at >= 0 ? text.slice(at + 1) : text;
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest) ?? /^([^:]+)(?::(\d+))?$/.exec(rest);
  if (match === null || match[1] === undefined || match[1] === '' || user === '') {
    throw new AppError({
      code: 'invalid-argument',
      message: `"${raw.trim()}" is not a ProxyJump hop.`,
      hint: 'Use [user@]host[:port], several separated by commas.',
    });
  }
  const port = parsePort(match[2], `ProxyJump hop ${raw.trim()}`);
  return {
    host: match[1],
    ...(user !== undefined && { user }),
    ...(port !== undefined && { port }),
  };
}

/** Enough jumps for any real bastion chain; more means a loop in the config. */
const maxHops = 8;

/**
 * The whole route to a host: jump hosts first, the target last. As in ssh, with
 * `ProxyJump j1,j2` the target is reached through j2, and j2 through j1; j1 itself is
 * reached as its own config says (its own ProxyJump applies). Every hop is resolved through
 * the config, so aliases work as hops.
 */
export function resolveRoute(
  loaded: LoadedSshConfig,
  request: HostRequest,
  env: SshEnvironment,
  depth = 0,
): ResolvedHost[] {
  if (depth > maxHops) {
    throw new AppError({
      code: 'invalid-argument',
      message: `The ProxyJump chain for ${request.host} is longer than ${maxHops} hops (a loop in the SSH config?).`,
    });
  }
  const target = resolveHost(loaded, request, env);
  if (target.proxyJump === undefined) return [target];
  const hops = target.proxyJump
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  const last = hops.pop();
  if (last === undefined) return [target];
  const lastHop = parseJumpHop(last);
  const before = resolveRoute(
    loaded,
    // With hops left, they become the last hop's ProxyJump, overriding its config's.
    { ...lastHop, ...(hops.length > 0 && { proxyJump: hops.join(',') }) },
    env,
    depth + 1,
  );
  return [...before, target];
}
