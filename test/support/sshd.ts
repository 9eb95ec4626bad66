/**
 * A real OpenSSH server on 127.0.0.1 for the SSH suites and the bench: its own host key,
 * config, authorized_keys and pid file in a private temp dir, run in the foreground
 * (`sshd -D -e`) as our child so it is stopped by its pid. CI machines are fresh, so
 * openssh-server is installed with apt when /usr/sbin/sshd is missing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureTestPackages } from './system-packages';

const run = promisify(execFile);
export const SSHD_PATH = '/usr/sbin/sshd';

/** Installs openssh-server and the client tools (ssh-keygen, ssh-agent) when missing. */
export const ensureOpenSsh = ensureTestPackages;

/** A key pair made with ssh-keygen. */
export interface KeyPair {
  readonly privateKeyPath: string;
  readonly publicKeyPath: string;
  /** The `.pub` line: `ssh-ed25519 AAAA… comment`. */
  readonly publicKey: string;
}

export async function generateKey(
  path: string,
  options: {
    type?: 'ed25519' | 'ecdsa' | 'rsa';
    /** RSA: 2048 unless given; ECDSA: the curve (256, 384 or 521), 256 unless given. */
    bits?: number;
    passphrase?: string;
    comment?: string;
  } = {},
): Promise<KeyPair> {
  const type = options.type ?? 'ed25519';
  const bits = options.bits ?? (type === 'rsa' ? 2048 : undefined);
  await run('ssh-keygen', [
    '-q',
    '-t',
    type,
    ...(bits !== undefined ? ['-b', String(bits)] : []),
    // Few KDF rounds: a test decrypts its keys many times, and the default 16 cost ~1 s each.
    ...(options.passphrase ? ['-a', '4'] : []),
    '-N',
    options.passphrase ?? '',
    '-C',
    options.comment ?? 'porthole-test',
    '-f',
    path,
  ]);
  const publicKey = (await readFile(`${path}.pub`, 'utf8')).trim();
  return { privateKeyPath: path, publicKeyPath: `${path}.pub`, publicKey };
}

/** A port nobody listens on right now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface SshdOptions {
  /** Public key lines allowed to log in, as any user (tests log in as root, and as nobody). */
  readonly authorizedKeys: readonly string[];
  /** Extra sshd_config lines. */
  readonly extraConfig?: readonly string[];
  /** Reuse this host key (a restart on the same identity); a fresh ed25519 key otherwise. */
  readonly hostKey?: KeyPair;
  readonly port?: number;
}

/** A running sshd. `stop()`/`kill()` end it; `start()` runs it again on the same port and key. */
export class Sshd {
  private child: ChildProcess | undefined;
  /** The killed listener's exit: until then it may still hold the port (see start()). */
  private exited: Promise<unknown> = Promise.resolve();
  private stderr = '';

  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly hostKey: KeyPair,
    private readonly configPath: string,
  ) {}

  static async create(options: SshdOptions): Promise<Sshd> {
    await ensureOpenSsh();
    // sshd refuses to start without its privilege-separation directory.
    await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const dir = await mkdtemp(join(tmpdir(), 'porthole-sshd-'));
    // sshd reads authorized_keys as the user logging in: let any user (e.g. nobody, for
    // permission tests) read it. The host key itself stays 0600.
    await chmod(dir, 0o755);
    const hostKey = options.hostKey ?? (await generateKey(join(dir, 'host_ed25519')));
    const port = options.port ?? (await freePort());
    const authorizedKeysPath = join(dir, 'authorized_keys');
    await writeFile(authorizedKeysPath, options.authorizedKeys.map((k) => `${k}\n`).join(''), {
      mode: 0o644,
    });
    const configPath = join(dir, 'sshd_config');
    const config = [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey.privateKeyPath}`,
      `AuthorizedKeysFile ${authorizedKeysPath}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'AllowStreamLocalForwarding yes',
      'AllowTcpForwarding yes',
      'PermitRootLogin prohibit-password',
      'Subsystem sftp internal-sftp',
      // Many test connections in a row from one address: don't throttle them.
      'MaxStartups 100',
      'LogLevel VERBOSE',
      ...(options.extraConfig ?? []),
    ];
    await writeFile(configPath, `${config.join('\n')}\n`, { mode: 0o600 });
    const sshd = new Sshd(dir, port, hostKey, configPath);
    await sshd.start();
    return sshd;
  }

  /** `[127.0.0.1]:port ssh-ed25519 AAAA…`: the known_hosts line for this server. */
  get knownHostsLine(): string {
    const [type, key] = this.hostKey.publicKey.split(' ');
    return `[127.0.0.1]:${this.port} ${type} ${key}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What sshd logged (with `-e`, to stderr): why a login was refused, for failing tests. */
  get log(): string {
    return this.stderr;
  }

  async start(): Promise<void> {
    if (this.child !== undefined) return;
    // A listener killed a moment ago may still accept: the check below would pass on it,
    // and the new sshd would fail to bind and exit.
    await this.exited;
    const child = spawn(SSHD_PATH, ['-D', '-e', '-f', this.configPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    // A test run that dies half-way must not leave sshd listening behind it.
    process.once('exit', this.killOnExit);
    child.once('exit', () => process.off('exit', this.killOnExit));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-20_000);
    });
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`sshd exited (${code ?? signal}): ${this.stderr.slice(-2000)}`)),
      ),
    );
    exited.catch(() => {});
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(this.port))) {
      if (child.exitCode !== null || child.signalCode !== null) await exited;
      if (Date.now() > deadline) {
        this.kill();
        throw new Error(`sshd did not listen on ${this.port}: ${this.stderr.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private readonly killOnExit = (): void => this.kill();

  /**
   * Ends sshd and every session it forked at once (SIGKILL), the way a node that crashes
   * looks to clients. Sessions call setsid(), so they are found as the listener's
   * descendants in /proc rather than by process group.
   */
  kill(): void {
    const child = this.child;
    this.child = undefined;
    if (child?.pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      this.exited = new Promise((resolve) => child.once('exit', resolve));
    }
    for (const pid of [child.pid, ...descendants(child.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  /**
   * Freezes every session (SIGSTOP) while the TCP connections stay open: a node that went
   * silent (network blackhole, hung kernel). Only keepalives can tell. `thaw()` undoes it.
   */
  freeze(): void {
    this.signalSessions('SIGSTOP');
  }

  thaw(): void {
    this.signalSessions('SIGCONT');
  }

  private signalSessions(signal: NodeJS.Signals): void {
    if (this.child?.pid === undefined) return;
    for (const pid of descendants(this.child.pid)) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone meanwhile.
      }
    }
  }

  /** Stops sshd and its sessions (as kill()) and waits for the listener to exit. */
  async stop(): Promise<void> {
    this.kill();
    await this.exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Every live process below `root`, from /proc (children first-found, then theirs). */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of /proc/<pid>/stat, after the parenthesised command (which may hold spaces).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(name), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** An ssh-agent of our own on a socket in `dir`, holding `keys`. Stop it with `stop()`. */
export interface Agent {
  readonly socketPath: string;
  stop(): Promise<void>;
}

export async function startAgent(dir: string, keys: readonly string[]): Promise<Agent> {
  await ensureOpenSsh();
  const socketPath = join(dir, 'agent.sock');
  const child = spawn('ssh-agent', ['-D', '-a', socketPath], { stdio: 'ignore' });
  const deadline = Date.now() + 5000;
  while (!(await readdir(dir)).includes('agent.sock')) {
    if (Date.now() > deadline) throw new Error('ssh-agent did not start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const key of keys) {
    await run('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: socketPath } });
  }
  return {
    socketPath,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
