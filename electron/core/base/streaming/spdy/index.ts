/**
 * SPDY/3.1 client for CRI stream URLs (exec, attach, port-forward), written for spdystream,
 * the server every kubelet-library runtime embeds. See connection.ts for why it is our own.
 */
export {
  upgradeToSpdy,
  SPDY_UPGRADE_PROTOCOL,
  STREAM_PROTOCOL_HEADER,
  type SpdyUpgrade,
  type SpdyUpgradeOptions,
} from './upgrade';
export {
  DEFAULT_STREAM_TIMEOUT_MS,
  type CreateStreamOptions,
  type PingOptions,
  type SpdyConnection,
} from './connection';
export type { SpdyStream } from './stream';
export type { HeaderMap } from './compression';
export { RstStatus, rstStatusName } from './frames';
