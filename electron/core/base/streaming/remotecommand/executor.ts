/**
 * The one way the app runs exec and attach: call the CRI RPC, upgrade the URL with the
 * chosen transport, open the streams, and fall back to the other transport (with a new
 * RPC) when the server refuses. Every attempt is recorded for the user.
 *
 * `auto` prefers SPDY: on containerd and CRI-O it is the only transport with stdin EOF and
 * resize together (WebSocket stops at v4 there, which can't half-close stdin). A
 * negotiated protocol that can't serve the session (piped stdin without EOF, a terminal
 * without resize) counts as refused, and the next transport is tried. A transport the
 * user forced is kept all the same, and the session says what it can't do
 * (`limitation`), for the monitor to show.
 */
import type { CriClient } from '../../cri';
import { AppError, isAppError } from '../../../../../shared/errors';
import type { Dialer, StreamTlsOptions } from '../dial';
import { shouldFallback, UnmetRequirementError, withFallback } from '../fallback';
import { handlerFor, transportNames, type TransportKind } from './handlers';
import { RemoteCommandImpl, type AttemptRecord, type RemoteCommand } from './remote-command';
import type {
  ConnectOptions,
  RemoteStreams,
  StreamFlags,
  StreamTransport,
  TerminalSize,
} from './streams';

export type TransportChoice = 'auto' | TransportKind;

export interface RemoteCommandOptions extends StreamFlags {
  /** The RPC is called once per attempt: stream URLs are single use. */
  readonly cri: Pick<CriClient, 'exec' | 'attach'>;
  readonly kind: 'exec' | 'attach';
  readonly containerId: string;
  /** The command, for exec. */
  readonly cmd?: readonly string[];
  readonly transport?: TransportChoice;
  /** How stream URLs are reached (direct TCP by default; an SSH tunnel for remote nodes). */
  readonly dialer?: Dialer;
  /** For https stream URLs (containerd's self-signed `enable_tls_streaming`). */
  readonly tls?: StreamTlsOptions;
  /** Sent as soon as the streams are ready (tty only): the PTY starts at 0×0. */
  readonly initialSize?: TerminalSize;
  readonly signal?: AbortSignal;
  /** Bound per attempt on RPC + upgrade + stream setup. */
  readonly timeoutMs?: number;
}

export const defaultSetupTimeoutMs = 15_000;

/** The transports an executor can use. */
export interface Transports {
  readonly spdy: StreamTransport;
  readonly websocket: StreamTransport;
}

function validate(options: RemoteCommandOptions): void {
  const invalid = (message: string): AppError =>
    new AppError({ code: 'invalid-argument', message });
  if (options.containerId === '') throw invalid('No container given.');
  if (!options.stdin && !options.stdout && !options.stderr) {
    throw invalid('At least one of stdin, stdout and stderr is needed.');
  }
  // The runtime merges stderr into stdout on a terminal and refuses both together.
  if (options.tty && options.stderr) throw invalid('A terminal session has no separate stderr.');
  if (options.kind === 'exec' && (options.cmd === undefined || options.cmd.length === 0)) {
    throw invalid('exec needs a command.');
  }
}

/**
 * Upgrades with `transport` and opens the streams the negotiated protocol's handler wants.
 * Nothing is left open when it fails; a cancel aborts the stream setup too.
 */
async function openStreams(
  transport: StreamTransport,
  options: ConnectOptions,
  flags: StreamFlags,
): Promise<RemoteStreams> {
  const { signal } = options;
  const connection = await transport.connect(options);
  const onAbort = (): void => connection.dispose();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) throw cancelledError();
    return await handlerFor(connection.transport, connection.protocol).open(connection, flags);
  } catch (error) {
    connection.dispose();
    if (signal?.aborted) throw cancelledError();
    throw isAppError(error)
      ? error
      : new AppError(
          {
            code: 'unavailable',
            message: `Opening the ${transportNames[connection.transport]} streams failed.`,
            detail: error instanceof Error ? error.message : String(error),
          },
          { cause: error },
        );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

function cancelledError(): AppError {
  return new AppError({ code: 'cancelled', message: 'Opening the stream was cancelled.' });
}

/** Why a negotiated protocol can't serve this session, if it can't. */
function unmet(flags: StreamFlags, streams: RemoteStreams): string | undefined {
  const what = `${streams.protocol} over ${transportNames[streams.transport]}`;
  if (flags.stdin && !flags.tty && !streams.canCloseStdin) {
    return `${what} cannot end stdin, which piped input needs`;
  }
  if (flags.tty && !streams.canResize) return `${what} cannot resize the terminal`;
  return undefined;
}

function summary(attempts: readonly AttemptRecord[]): string {
  return attempts
    .map(
      (a) =>
        `${a.transport}: ${a.outcome}${a.status !== undefined ? ` (HTTP ${a.status})` : ''}${a.message !== undefined ? ` — ${a.message}` : ''}`,
    )
    .join('; ');
}

function withAttempts(error: unknown, attempts: readonly AttemptRecord[]): unknown {
  if (!isAppError(error) || attempts.length < 2) return error;
  const detail = [error.detail, `attempts: ${summary(attempts)}`].filter(Boolean).join('\n');
  return new AppError(
    {
      code: error.code,
      message: error.message,
      detail,
      ...(error.hint !== undefined && { hint: error.hint }),
    },
    { cause: error },
  );
}

export async function openRemoteCommandWith(
  transports: Transports,
  options: RemoteCommandOptions,
): Promise<RemoteCommand> {
  validate(options);
  const choice = options.transport ?? 'auto';
  const timeoutMs = options.timeoutMs ?? defaultSetupTimeoutMs;
  const flags: StreamFlags = {
    tty: options.tty,
    stdin: options.stdin,
    stdout: options.stdout,
    stderr: options.stderr,
  };
  const attempts: AttemptRecord[] = [];
  let limitation: string | undefined;

  const requestUrl = async (): Promise<string> => {
    const callOptions = {
      timeoutMs,
      ...(options.signal !== undefined && { signal: options.signal }),
    };
    const request = { containerId: options.containerId, ...flags };
    const { url } =
      options.kind === 'exec'
        ? await options.cri.exec({ ...request, cmd: [...(options.cmd ?? [])] }, callOptions)
        : await options.cri.attach(request, callOptions);
    return url;
  };

  const attempt = (transport: StreamTransport) => async (): Promise<RemoteStreams> => {
    const started = performance.now();
    const record = (
      entry: Omit<AttemptRecord, 'transport' | 'protocolsOffered' | 'durationMs'>,
    ): void => {
      attempts.push({
        transport: transport.transport,
        protocolsOffered: transport.protocols,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        ...entry,
      });
    };
    let streams: RemoteStreams;
    try {
      const url = await requestUrl();
      // One budget per attempt: what the RPC used is gone for the upgrade.
      const remaining = Math.max(1, timeoutMs - (performance.now() - started));
      streams = await openStreams(
        transport,
        {
          url,
          timeoutMs: remaining,
          ...(options.dialer !== undefined && { dialer: options.dialer }),
          ...(options.tls !== undefined && { tls: options.tls }),
          ...(options.signal !== undefined && { signal: options.signal }),
        },
        flags,
      );
    } catch (error) {
      const status =
        typeof error === 'object' && error !== null
          ? (error as { status?: unknown }).status
          : undefined;
      record({
        outcome: shouldFallback(error) ? 'refused' : 'failed',
        ...(typeof status === 'number' && { status }),
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
    const why = unmet(flags, streams);
    if (why !== undefined && choice === 'auto') {
      streams.dispose();
      record({ outcome: 'refused', message: `negotiated ${streams.protocol}, but ${why}` });
      throw new UnmetRequirementError(
        `No transport can give this session everything it needs: ${why}.`,
        `negotiated ${streams.protocol}`,
      );
    }
    if (why !== undefined) {
      const other = transport.transport === 'spdy' ? 'websocket' : 'spdy';
      limitation = `${transportNames[transport.transport]} was chosen by hand: ${why} (auto would take ${transportNames[other]}).`;
      record({ outcome: 'ok', message: limitation });
    } else {
      record({ outcome: 'ok' });
    }
    return streams;
  };

  const order: readonly TransportKind[] = choice === 'auto' ? ['spdy', 'websocket'] : [choice];
  const run = order
    .map((kind) => attempt(transports[kind]))
    .reduceRight((secondary, primary) => withFallback(primary, secondary, shouldFallback));

  let streams: RemoteStreams;
  try {
    streams = await run();
  } catch (error) {
    throw withAttempts(error, attempts);
  }
  const session = new RemoteCommandImpl(
    streams,
    attempts,
    options.kind,
    options.signal,
    limitation,
  );
  if (options.tty) session.sendInitialSize(options.initialSize);
  return session;
}
