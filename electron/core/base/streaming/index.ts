/**
 * Streaming: exec/attach (remote-command protocol v1–v5) and port-forward over SPDY/3.1 or
 * WebSocket. The rest of the app uses `openRemoteCommand` (exec/attach) and ./portforward,
 * and nothing below them.
 */
export { directDialer, type Dialer, type StreamTlsOptions } from './dial';
export { UpgradeError, isUpgradeFailure, type UpgradeErrorData } from './upgrade';
export {
  defaultSetupTimeoutMs,
  openRemoteCommand,
  offeredProtocols,
  type AttemptRecord,
  type Negotiated,
  type RemoteCommandCapabilities,
  type RemoteCommandOptions,
  type RemoteCommandResult,
  type RemoteCommand,
  type TerminalSize,
  type TransportChoice,
  type TransportKind,
} from './remotecommand';
