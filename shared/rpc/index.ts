export {
  createClient,
  type ClientOptions,
  type NotifyProxy,
  type RpcClient,
  type ServicesProxy,
  type EventListener,
} from './client';
export { checkMessage, defaultRpcLimits, printableName, type RpcLimits } from './limits';
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
export { decodeFrame, encodeFrame, type Frame } from './frames';
export {
  OutgoingScheduler,
  bulkBytes,
  receiveCredit,
  type OutgoingSchedulerOptions,
} from './scheduler';
