/**
 * Streaming: exec/attach (remote-command protocol v1–v5) over SPDY/3.1 or WebSocket.
 * The rest of the app uses `openRemoteCommand` and nothing below it.
 */
export { directDialer, type Dialer } from './dial';
export {
  defaultSetupTimeoutMs,
  openRemoteCommand,
  offeredProtocols,
  type AttemptRecord,
  type Negotiated,
  type RemoteCommandCapabilities,
  type RemoteCommandOptions,
  type RemoteCommandResult,
  type RemoteCommandSession,
  type TerminalSize,
  type TransportChoice,
  type TransportKind,
} from './remotecommand';
export type { StreamTlsOptions } from './websocket';
