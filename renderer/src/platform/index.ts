/**
 * The renderer's one way to the core. Feature code imports from here only: it never sees
 * which transport carries the contract (Electron MessagePort, or WebSocket in browser mode).
 */
import type { EventSource, ServiceHandlers, Services } from '../../../shared/contract';
import { createMessagePortPair, serve } from '../../../shared/rpc';
import { createPortholeClient, type PortholeClient } from './client';
import { openWebSocketPort, requestElectronPort } from './port-adapters';

export type { PortholeClient, ConnectionState, ServicesProxy } from './client';
export type {
  Services,
  Events,
  EventName,
  EventArgument,
  EventPayload,
  EventSource,
  EventSink,
} from '../../../shared/contract';
export { AppError, isAppError, type AppErrorData } from '../../../shared/errors';
export type { Disposable } from '../../../shared/lifecycle';

/** The page's token, present only when a Porthole host served it (browser mode). */
function pageToken(): string | null {
  return new URLSearchParams(window.location.search).get('token');
}

/** The RPC endpoint of the host that served this page. */
function webSocketUrl(token: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/rpc?token=${encodeURIComponent(token)}`;
}

/**
 * Connects to the core: in Electron through the MessagePort the preload hands over; in a
 * browser through a WebSocket to the page's own origin, authenticated with the page's
 * `?token=`, reconnecting by itself if the socket drops.
 */
export async function connectPorthole(): Promise<PortholeClient> {
  const token = pageToken();
  if (token === null) {
    return createPortholeClient(await requestElectronPort(), 'electron');
  }
  const url = webSocketUrl(token);
  return createPortholeClient(await openWebSocketPort(url), 'browser', {
    reopen: () => openWebSocketPort(url),
  });
}

export interface InMemoryOptions {
  readonly mode?: PortholeClient['mode'];
  /** `json` copies messages the way the WebSocket does; default `structured`. */
  readonly clone?: 'structured' | 'json';
}

/**
 * A client wired to in-process services through the real protocol: for renderer tests,
 * stories and fakes. `services` may be a plain `Services` object (e.g. with vi.fn methods).
 */
export function createInMemoryPorthole(
  services: Services | ServiceHandlers,
  events: EventSource,
  options: InMemoryOptions = {},
): PortholeClient {
  const [clientPort, serverPort] = createMessagePortPair({ clone: options.clone ?? 'structured' });
  const server = serve(serverPort, services, events);
  serverPort.onClose(() => server.dispose());
  return createPortholeClient(clientPort, options.mode ?? 'browser');
}
