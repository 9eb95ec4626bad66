/**
 * Opening one terminal's stream: check the container, settle the command (the probed
 * shell for exec) and the tty/stdin flags (the container's own for attach), register the
 * session with the monitor, and run exec or attach with the initial size.
 */
import { toAppErrorData } from '../../../../shared/errors';
import type { TerminalInfo, TerminalOpenRequest } from '../../../../shared/model';
import { toSessionAttempts, type SessionHandle, type SessionRegistry } from '../sessions';
import type { NodeClient } from '../nodes';
import type { Dialer, openRemoteCommand, RemoteCommand } from '../../base/streaming';
import { attachSettings, runningContainer, sessionTarget } from './container-facts';
import { probeShell } from './shell-probe';

export interface OpenTerminalDeps {
  readonly client: NodeClient;
  readonly dialer: Dialer;
  readonly nodeName: string;
  readonly sessions: SessionRegistry;
  readonly openRemoteCommand: typeof openRemoteCommand;
}

export interface OpenedTerminal {
  /** Everything but the terminal id, which the manager assigns. */
  readonly info: Omit<TerminalInfo, 'terminalId'>;
  readonly remote: RemoteCommand;
  readonly handle: SessionHandle;
}

export async function openTerminal(
  deps: OpenTerminalDeps,
  request: TerminalOpenRequest,
  signal: AbortSignal,
  /** The monitor's kill button. */
  kill: () => void,
): Promise<OpenedTerminal> {
  const { client, nodeName } = deps;
  const { nodeId, containerId, kind } = request;
  const detail = await runningContainer(client, containerId, nodeName, signal);
  const flags = kind === 'exec' ? { tty: true, stdin: true, known: true } : attachSettings(detail);
  const command =
    kind === 'exec'
      ? [...(request.command ?? (await probeShell(client, containerId, signal)))]
      : [];
  const target = await sessionTarget(client, detail, signal);
  const handle = deps.sessions.register({
    kind,
    nodeId,
    nodeName,
    target,
    ...(kind === 'exec' && { detail: command.join(' ') }),
    kill,
  });
  let remote: RemoteCommand;
  // Before the Exec call: the process starts after it (findLeftover matches on this).
  const openedAt = Date.now();
  try {
    remote = await deps.openRemoteCommand({
      cri: client,
      kind,
      containerId,
      ...(kind === 'exec' && { cmd: command }),
      tty: flags.tty,
      stdin: flags.stdin,
      stdout: true,
      // A PTY merges stderr into stdout; the runtime refuses both together.
      stderr: !flags.tty,
      transport: request.transport ?? 'auto',
      dialer: deps.dialer,
      initialSize: { cols: request.cols, rows: request.rows },
      signal,
    });
  } catch (error) {
    const data = toAppErrorData(error);
    handle.end({ state: 'failed', reason: data.message, error: data });
    throw error;
  }
  const info = {
    sessionId: handle.id,
    nodeId,
    containerId,
    containerName: detail.name,
    kind,
    command,
    tty: flags.tty,
    stdin: flags.stdin,
    transport: remote.negotiated.transport,
    protocol: remote.negotiated.protocol,
    attempts: toSessionAttempts(remote.attempts),
    openedAt,
  };
  handle.update({
    state: 'active',
    transport: info.transport,
    protocol: info.protocol,
    attempts: info.attempts,
    ...(remote.limitation !== undefined && { limitation: remote.limitation }),
    ...(!flags.known && {
      stateReason: 'Attached without input: the runtime did not say whether it has a tty.',
    }),
  });
  return { info, remote, handle };
}
