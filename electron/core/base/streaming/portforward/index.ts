/**
 * Port forwarding on the wire: transports into a pod (SPDY `portforward.k8s.io`, WebSocket
 * `v4.channel.k8s.io` as the fallback), local listeners, and the bridge between a local
 * socket and a remote connection. The supervisor in ../../forwards builds forwards from these.
 */
export { Bridge, type BridgeEnd, type BridgeObserver, type BridgeOptions } from './bridge';
export {
  connectPortForward,
  type ConnectedTransport,
  type PortForwardConnectOptions,
} from './connect';
export { formatAddress, noTargetError, remoteConnectionError } from './errors';
export {
  LOOPBACK_ADDRESSES,
  LocalListener,
  listenAll,
  listenLocal,
  type ConnectionHandler,
  type ListenSpec,
} from './listeners';
export { DEFAULT_PAIR_TIMEOUT_MS, SPDY_PORT_FORWARD_PROTOCOL } from './spdy';
export type { PortForwardTransport, RemoteConnection, StreamUrlRequest } from './types';
export { WEBSOCKET_PORT_FORWARD_PROTOCOLS } from './websocket';
