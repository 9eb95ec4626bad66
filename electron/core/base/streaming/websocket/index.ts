export {
  connectWebSocket,
  defaultUpgradeTimeoutMs,
  type StreamTlsOptions,
  type WebSocketConnectOptions,
} from './connect';
export {
  ChannelConnection,
  type ChannelConnectionOptions,
  type ConnectionEnd,
  type WritableChannelOptions,
} from './channels';
export {
  Channel,
  MAX_MESSAGE_PAYLOAD,
  decodeMessage,
  encodeMessage,
  encodeClose,
} from './protocol';
export { upgradeFailure, upgradeRefused } from './upgrade-error';
