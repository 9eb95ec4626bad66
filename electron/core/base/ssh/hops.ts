/**
 * Logging in along a route: jump hosts first, each reached through a direct-tcpip channel
 * of the previous one, the node last. Every hop gets the same treatment — its own host key
 * check (a jump host is verified like any other server), its own keys, keepalives and
 * connect timeout.
 */
import type { Duplex } from 'node:stream';
import { AppError } from '../../../../shared/errors';
import type { KeyChain } from './auth';
import type { ResolvedHost } from './config';
import { toConnectError, type HopContext } from './errors';
import type { HostKeyChecker } from './host-keys';
import { Client, type AgentAuthMethod, type Ssh2Client } from './ssh2';

/** Pauses a timeout while the user is asked something (a host key, a passphrase). */
export class PromptGate {
  private listener: ((prompting: boolean) => void) | undefined;

  readonly notify = (prompting: boolean): void => this.listener?.(prompting);

  watch(listener: (prompting: boolean) => void): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }
}

/** Everything needed to log in to one hop, built once and reused by reconnects. */
export interface HopPlan {
  readonly host: ResolvedHost;
  readonly context: HopContext;
  readonly hostKeys: HostKeyChecker;
  readonly keys: KeyChain;
  readonly gate: PromptGate;
  readonly keepaliveIntervalMs: number;
  readonly keepaliveCountMax: number;
  readonly connectTimeoutMs: number;
}

/** Opens a direct-tcpip channel on `client` to host:port as that server sees it. */
export function forwardOut(client: Ssh2Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) =>
    client.forwardOut('127.0.0.1', 0, host, port, (error, channel) =>
      error ? reject(error) : resolve(channel),
    ),
  );
}

/** Logs in to one hop, over `sock` (a channel of the previous hop) or TCP. */
export async function connectHop(
  plan: HopPlan,
  sock: Duplex | undefined,
  signal: AbortSignal | undefined,
): Promise<Ssh2Client> {
  const { host, context } = plan;
  const target = {
    node: context.node,
    host: host.knownHostsName,
    port: host.port,
    ...(context.jumpHost !== undefined && { jumpHost: context.jumpHost }),
  };
  // Time spent in prompts does not count, so the timer is started and stopped around them.
  let remaining = plan.connectTimeoutMs;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let onTimeout: () => void = () => {};
  const startTimer = (): void => {
    startedAt = Date.now();
    timer = setTimeout(() => onTimeout(), Math.max(0, remaining));
  };
  const stopTimer = (): void => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    remaining -= Date.now() - startedAt;
  };
  const unwatch = plan.gate.watch((prompting) => (prompting ? stopTimer() : startTimer()));
  startTimer();

  try {
    await plan.keys.load();
    const algorithms = await plan.hostKeys.algorithmsFor(target);
    return await new Promise<Ssh2Client>((resolve, reject) => {
      const client = new Client();
      const agentAuth: AgentAuthMethod = { type: 'agent', username: host.user, agent: plan.keys };
      let hostKeyError: AppError | undefined;
      let settled = false;
      const fail = (error: AppError): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        client.removeAllListeners('ready');
        // Keep swallowing late errors of the client we are abandoning.
        client.on('error', () => {});
        client.end();
        sock?.destroy();
        reject(error);
      };
      const onAbort = (): void =>
        fail(
          new AppError({
            code: 'cancelled',
            message: `Connecting to ${context.node} was cancelled.`,
          }),
        );
      onTimeout = () =>
        fail(
          new AppError({
            code: 'deadline-exceeded',
            message: `No SSH login to ${describeHop(context)} within ${Math.round(plan.connectTimeoutMs / 1000)} s.`,
            hint: 'The host may be down, a firewall may drop the connection, or the network is slow (raise ConnectTimeout).',
          }),
        );
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });

      client.once('ready', () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(client);
      });
      client.on('error', (error: Error & { level?: string }) => {
        // A key the agent or a file could not sign with: ssh2 goes on with the next key,
        // unless the user cancelled a passphrase prompt.
        if (error.level === 'agent' && plan.keys.cancelled === undefined) return;
        fail(hostKeyError ?? plan.keys.cancelled ?? toConnectError(error, context, plan.keys));
      });
      client.once('close', () =>
        fail(
          hostKeyError ??
            plan.keys.cancelled ??
            new AppError({
              code: 'connection-lost',
              message: `${describeHop(context)} closed the connection before the login completed.`,
            }),
        ),
      );
      client.connect({
        ...(sock !== undefined ? { sock } : { host: host.hostName, port: host.port }),
        username: host.user,
        authHandler: [agentAuth],
        hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
          plan.hostKeys.verify(target, key).then(
            () => verify(true),
            (error: unknown) => {
              // A confirmation callback that throws counts as "not trusted".
              hostKeyError =
                error instanceof AppError
                  ? error
                  : new AppError({
                      code: 'cancelled',
                      message: `The host key of ${target.host}:${target.port} could not be confirmed; not connected to ${context.node}.`,
                      detail: error instanceof Error ? error.message : String(error),
                    });
              verify(false);
            },
          );
        },
        algorithms: { serverHostKey: algorithms },
        // Our own timer (above) bounds the login; ssh2's would also run during prompts.
        readyTimeout: 0,
        keepaliveInterval: plan.keepaliveIntervalMs,
        keepaliveCountMax: plan.keepaliveCountMax,
      });
      // ssh2 leaves Nagle on: with delayed ACKs that costs ~40 ms on every small write
      // (a keystroke, a gRPC frame). No-op for a hop carried by a channel.
      client.setNoDelay(true);
    });
  } finally {
    stopTimer();
    unwatch();
  }
}

function describeHop(context: HopContext): string {
  return context.jumpHost !== undefined
    ? `jump host ${context.jumpHost} (${context.hostName}:${context.port})`
    : `${context.node} (${context.hostName}:${context.port})`;
}

/**
 * Logs in to every hop in order. Returns the clients, node last; on failure every client
 * already opened is closed again.
 */
export async function connectRoute(
  plans: readonly HopPlan[],
  signal: AbortSignal | undefined,
): Promise<Ssh2Client[]> {
  const clients: Ssh2Client[] = [];
  try {
    for (const plan of plans) {
      const previous = clients.at(-1);
      let sock: Duplex | undefined;
      if (previous !== undefined) {
        try {
          sock = await forwardOut(previous, plan.host.hostName, plan.host.port);
        } catch (error) {
          const via = plans[clients.length - 1]!.context;
          throw new AppError(
            {
              code: 'unavailable',
              message: `Jump host ${via.jumpHost ?? via.hostName} could not reach ${plan.host.hostName}:${plan.host.port}.`,
              detail: error instanceof Error ? error.message : String(error),
              hint: 'Check the address from the jump host, and that it allows TCP forwarding (AllowTcpForwarding).',
            },
            { cause: error },
          );
        }
      }
      clients.push(await connectHop(plan, sock, signal));
    }
    return clients;
  } catch (error) {
    for (const client of clients.reverse()) client.end();
    throw error;
  }
}
