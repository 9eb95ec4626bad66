import { AppError } from '../../../../../shared/errors';
import { toDisposable, type Disposable } from '../../../../../shared/lifecycle';
import type { HostKeyPrompt, SshConnectionState } from '../../../../../shared/model';
import type { Dialer } from '../../../base/streaming';
import type { OpenSshOptions, SshSession } from '..';

/** An SSH connection that exists only in memory: the test drives its state. */
export class FakeSshSession implements SshSession {
  state: SshConnectionState = { state: 'connected', since: 1 };
  disposed = false;
  readonly runtimeSocketPath = '/run/containerd/containerd.sock';
  readonly dialer: Dialer = () =>
    Promise.reject(new AppError({ code: 'unimplemented', message: 'fake dialer' }));
  private readonly listeners = new Set<(state: SshConnectionState) => void>();

  constructor(
    readonly endpoint: string,
    private readonly log: string[] = [],
  ) {}

  onDidChangeState(listener: (state: SshConnectionState) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  }

  setState(state: SshConnectionState): void {
    this.state = state;
    for (const listener of [...this.listeners]) listener(state);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.log.push(`dispose ssh ${this.endpoint}`);
    this.setState({ state: 'disconnected', reason: 'closed by Porthole' });
    this.listeners.clear();
  }
}

export const fakeHostKey: HostKeyPrompt = {
  host: '10.0.0.5',
  port: 2222,
  keyType: 'ssh-ed25519',
  fingerprintSha256: 'SHA256:k3y',
};

/** Rejects as SshNodeConnection.connect does when its signal aborts. */
function whenAborted(signal: AbortSignal, node: string): Promise<never> {
  return new Promise((_, reject) => {
    const fail = (): void =>
      reject(new AppError({ code: 'cancelled', message: `Connecting to ${node} was cancelled.` }));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * The login's questions as SshNodeConnection asks them: the host key (refused → a
 * `cancelled` AppError), then, when `passphrase` is set, the key's passphrase up to three
 * times (cancelled → a `cancelled` AppError). An aborted signal ends it at once.
 */
export async function fakeLogin(
  node: string,
  options: OpenSshOptions,
  login: { hostKey?: HostKeyPrompt; keyPath?: string; passphrase?: string },
): Promise<void> {
  const steps = async (): Promise<void> => {
    if (login.hostKey !== undefined && !(await options.confirmHostKey(login.hostKey))) {
      throw new AppError({
        code: 'cancelled',
        message: `The host key of [${login.hostKey.host}]:${login.hostKey.port} (${login.hostKey.fingerprintSha256}) was not trusted; not connected to ${node}.`,
      });
    }
    if (login.passphrase === undefined) return;
    const keyPath = login.keyPath ?? '/keys/locked';
    for (let attempt = 0; attempt < 3; attempt++) {
      const given = await options.askPassphrase(keyPath);
      if (given === undefined) {
        throw new AppError({
          code: 'cancelled',
          message: `Login cancelled: no passphrase was given for ${keyPath}.`,
        });
      }
      if (given === login.passphrase) return;
    }
    throw new AppError({ code: 'permission-denied', message: `Login to ${node} was refused.` });
  };
  await Promise.race([steps(), whenAborted(options.signal, node)]);
}
