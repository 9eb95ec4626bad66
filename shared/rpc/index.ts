export { createClient, type RpcClient, type ServicesProxy, type EventListener } from './client';
export { serve, type ServeOptions } from './server';
export { createMessagePortPair, type MessagePortLike, type MessagePortPairOptions } from './port';
export {
  parseClientMessage,
  parseServerMessage,
  type ClientMessage,
  type ServerMessage,
  type Message,
} from './protocol';
export { createAbortController } from './abort';
