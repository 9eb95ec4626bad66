export { startHost, rpcPath, type Host, type HostOptions } from './host';
export { contentDisposition, downloadsPrefix, type HostDownload } from './downloads';
export { contentSecurityPolicy } from './security-headers';
export { createToken, tokenMatches } from './token';
export { resolveStaticPath, mimeTypeOf } from './static-files';
export { certificateFingerprint, loadOrCreateCertificate, localNames, type HostTls } from './tls';
export {
  defaultOutgoingBufferLimits,
  notReadingClose,
  webSocketPort,
  type OutgoingBufferLimits,
  type WebSocketPortOptions,
} from './websocket-port';
