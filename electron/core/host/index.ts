export { startHost, rpcPath, type Host, type HostOptions } from './host';
export { contentSecurityPolicy } from './security-headers';
export { createToken, tokenMatches } from './token';
export { resolveStaticPath, mimeTypeOf } from './static-files';
