/**
 * The Kubernetes channel protocol over WebSocket: the upgrade (connect.ts) and the
 * channel-multiplexed connection (channels.ts), which is the one place messages are
 * encoded and decoded (protocol.ts, base64 variants included).
 */
export { connectWebSocket, type WebSocketConnectOptions } from './connect';
export {
  ChannelConnection,
  type ChannelConnectionOptions,
  type ChannelErrors,
  type ConnectionEnd,
  type WritableChannelOptions,
} from './channels';
export { Channel } from './protocol';
