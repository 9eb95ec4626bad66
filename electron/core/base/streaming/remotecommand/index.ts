import { openRemoteCommandWith, type RemoteCommandOptions } from './executor';
import type { RemoteCommand } from './remote-command';
import { defaultTransports } from './transports';

/**
 * Runs exec or attach and returns the live session. Rejects with an AppError (the RPC's,
 * the last attempt's, or invalid options) and never leaves a connection behind.
 */
export function openRemoteCommand(options: RemoteCommandOptions): Promise<RemoteCommand> {
  return openRemoteCommandWith(defaultTransports, options);
}

export {
  defaultSetupTimeoutMs,
  openRemoteCommandWith,
  type RemoteCommandOptions,
  type TransportChoice,
  type Transports,
} from './executor';
export type {
  AttemptRecord,
  Negotiated,
  RemoteCommandCapabilities,
  RemoteCommandResult,
  RemoteCommand,
} from './remote-command';
export type {
  StreamConnection,
  StreamFlags,
  StreamTransport,
  StreamType,
  TerminalSize,
} from './streams';
export type { TransportKind } from './handlers';
export { offeredProtocols } from './handlers';
export { spdyTransport } from './spdy-streams';
export { websocketTransport } from './websocket-streams';
