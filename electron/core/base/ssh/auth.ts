/**
 * Public-key login the way ssh(1) does it, as one ssh2 agent:
 * - keys in the user's agent (SSH_AUTH_SOCK / IdentityAgent) first, unless IdentitiesOnly;
 * - then the identity files, signed by the agent when it holds the same key;
 * - a file's public half comes from `<file>.pub` or the unencrypted header of an OpenSSH key,
 *   so the server is asked whether it accepts a key *before* its passphrase is needed, and
 *   the user is asked only for a key that will be used (as ssh does);
 * - a decrypted key is kept in memory for the connection's life (reconnects don't ask
 *   again), never written anywhere, never put in a message.
 */
import { readFile } from 'node:fs/promises';
import { AppError } from '../../../../shared/errors';
import { fingerprintSha256 } from './known-hosts';
import {
  BaseAgent,
  OpenSSHAgent,
  utils,
  type IdentityCallback,
  type ParsedKey,
  type SignCallback,
  type SigningRequestOptions,
} from './ssh2';

/** Asks for a key file's passphrase; undefined means the user cancelled. */
export type AskPassphrase = (keyPath: string) => Promise<string | undefined>;

interface Identity {
  readonly publicKey: ParsedKey;
  /** Words for messages: "ssh-agent key SHA256:…" or "/home/u/.ssh/id_ed25519". */
  readonly label: string;
  /** The file, when the key is a file (signed via the agent when it holds it). */
  readonly file?: string;
}

/** ssh asks three times before giving up on a key. */
const passphraseAttempts = 3;

export interface KeyChainOptions {
  readonly identityFiles: readonly string[];
  /** Configured files that are missing are reported; missing default files are not. */
  readonly identityFilesConfigured: boolean;
  readonly identitiesOnly: boolean;
  /** The agent's socket; undefined for none. */
  readonly agentSocket?: string;
  readonly askPassphrase?: AskPassphrase;
  /** Called while the user is asked: connect timeouts must not run meanwhile. */
  readonly onPrompt?: (prompting: boolean) => void;
}

export class KeyChain extends BaseAgent<ParsedKey> {
  private readonly agent: InstanceType<typeof OpenSSHAgent> | undefined;
  private readonly decrypted = new Map<string, ParsedKey>();
  private files: Identity[] = [];
  private agentKeys: ParsedKey[] = [];
  /** What the last login offered and skipped, for "none of the keys was accepted". */
  offered: string[] = [];
  skipped: string[] = [];
  /** Set when the user cancelled a passphrase prompt: the login stops there. */
  cancelled: AppError | undefined;

  constructor(private readonly options: KeyChainOptions) {
    super();
    this.agent = options.agentSocket ? new OpenSSHAgent(options.agentSocket) : undefined;
  }

  /** Reads the identity files' public halves; call before each login. */
  async load(): Promise<void> {
    this.cancelled = undefined;
    this.skipped = [];
    const files: Identity[] = [];
    for (const file of this.options.identityFiles) {
      const publicKey = await this.publicKeyOf(file);
      if (publicKey !== undefined) files.push({ publicKey, label: file, file });
    }
    this.files = files;
    this.agentKeys = await this.listAgentKeys();
  }

  override getIdentities(cb: IdentityCallback<ParsedKey>): void {
    const fromAgent: Identity[] = [];
    for (const key of this.agentKeys) {
      const isFile = this.files.some((identity) => identity.publicKey.equals(key));
      if (isFile || this.options.identitiesOnly) continue;
      fromAgent.push({ publicKey: key, label: `ssh-agent key ${describe(key)}` });
    }
    const identities = [...fromAgent, ...this.files];
    this.offered = identities.map((identity) =>
      identity.file !== undefined
        ? `${identity.file} (${describe(identity.publicKey)})`
        : identity.label,
    );
    cb(
      null,
      identities.map((identity) => identity.publicKey),
    );
  }

  override sign(
    pubKey: ParsedKey,
    data: Buffer,
    options: SigningRequestOptions | SignCallback,
    cb?: SignCallback,
  ): void {
    const done = typeof options === 'function' ? options : cb;
    const signOptions = typeof options === 'function' ? {} : options;
    if (done === undefined) return;
    this.signAsync(pubKey, data, signOptions).then(
      (signature) => done(null, signature),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private async signAsync(
    pubKey: ParsedKey,
    data: Buffer,
    options: SigningRequestOptions,
  ): Promise<Buffer> {
    if (this.agent !== undefined && this.agentKeys.some((key) => key.equals(pubKey))) {
      const agent = this.agent;
      return new Promise((resolve, reject) =>
        agent.sign(pubKey, data, options, (error, signature) =>
          error || signature === undefined
            ? reject(error ?? new Error('The agent did not sign'))
            : resolve(signature),
        ),
      );
    }
    const identity = this.files.find((candidate) => candidate.publicKey.equals(pubKey));
    if (identity?.file === undefined) throw new Error('Unknown key');
    const key = await this.privateKey(identity.file);
    const signature = key.sign(data, options.hash);
    if (signature instanceof Error) throw signature;
    return signature;
  }

  private async privateKey(file: string): Promise<ParsedKey> {
    const cached = this.decrypted.get(file);
    if (cached !== undefined) return cached;
    const data = await readFile(file);
    let key = utils.parseKey(data);
    for (let attempt = 0; key instanceof Error && isEncrypted(key); attempt++) {
      if (this.options.askPassphrase === undefined || attempt >= passphraseAttempts) {
        throw new Error(`no usable passphrase for ${file}`);
      }
      this.options.onPrompt?.(true);
      let passphrase: string | undefined;
      try {
        passphrase = await this.options.askPassphrase(file);
      } finally {
        this.options.onPrompt?.(false);
      }
      if (passphrase === undefined) {
        this.cancelled = new AppError({
          code: 'cancelled',
          message: `Login cancelled: no passphrase was given for ${file}.`,
        });
        throw this.cancelled;
      }
      // A wrong passphrase fails ssh2's integrity check ("… bad passphrase?"), which the
      // loop condition recognises: ask again, as ssh does.
      key = utils.parseKey(data, passphrase);
    }
    if (key instanceof Error || !key.isPrivateKey()) {
      throw new Error(`${file} is not a private key Porthole can use`);
    }
    this.decrypted.set(file, key);
    return key;
  }

  private async publicKeyOf(file: string): Promise<ParsedKey | undefined> {
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || this.options.identityFilesConfigured) {
        this.skipped.push(`${file}: ${code === 'ENOENT' ? 'no such file' : String(code)}`);
      }
      return undefined;
    }
    const fromPub = await readFile(`${file}.pub`, 'utf8').then(
      (text) => utils.parseKey(text),
      () => undefined,
    );
    if (fromPub !== undefined && !(fromPub instanceof Error)) return fromPub;
    const parsed = utils.parseKey(data);
    if (!(parsed instanceof Error)) return parsed;
    if (isEncrypted(parsed)) {
      const header = openSshPublicKey(data);
      if (header !== undefined) return header;
      // An old-format (PEM) encrypted key has no readable public half: decrypt it now.
      try {
        return await this.privateKey(file);
      } catch (error) {
        if (this.cancelled !== undefined) throw this.cancelled;
        this.skipped.push(`${file}: ${(error as Error).message}`);
        return undefined;
      }
    }
    this.skipped.push(`${file}: not a key Porthole can read`);
    return undefined;
  }

  private listAgentKeys(): Promise<ParsedKey[]> {
    const agent = this.agent;
    if (agent === undefined) return Promise.resolve([]);
    return new Promise((resolve) =>
      agent.getIdentities((error, keys) => {
        if (error || keys === undefined) {
          this.skipped.push(`ssh-agent at ${this.options.agentSocket}: not reachable`);
          resolve([]);
          return;
        }
        resolve(keys.filter((key): key is ParsedKey => typeof key === 'object' && 'sign' in key));
      }),
    );
  }
}

function isEncrypted(error: Error): boolean {
  return /passphrase/i.test(error.message);
}

function describe(key: ParsedKey): string {
  return `${key.type} ${fingerprintSha256(key.getPublicSSH())}`;
}

/**
 * The public key stored unencrypted in an `openssh-key-v1` private key:
 * magic, cipher, kdf, kdf options, key count, then the first public key blob.
 */
export function openSshPublicKey(data: Buffer): ParsedKey | undefined {
  const text = data.toString('latin1');
  const body =
    /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]+?)-----END OPENSSH PRIVATE KEY-----/.exec(
      text,
    )?.[1];
  if (body === undefined) return undefined;
  const raw = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  if (raw.toString('latin1', 0, magic.length) !== magic) return undefined;
  let offset = magic.length;
  const readString = (): Buffer | undefined => {
    if (offset + 4 > raw.length) return undefined;
    const length = raw.readUInt32BE(offset);
    if (offset + 4 + length > raw.length) return undefined;
    const value = raw.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  for (let i = 0; i < 3; i++) if (readString() === undefined) return undefined; // cipher, kdf, options
  if (offset + 4 > raw.length || raw.readUInt32BE(offset) < 1) return undefined;
  offset += 4;
  const blob = readString();
  if (blob === undefined || blob.length < 4) return undefined;
  const type = blob.toString('latin1', 4, 4 + blob.readUInt32BE(0));
  const key = utils.parseKey(`${type} ${blob.toString('base64')}`);
  return key instanceof Error ? undefined : key;
}
