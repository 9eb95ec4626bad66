/**
 * The renderer's one way to the core. Feature code imports from here only: it never sees
 * which transport carries the contract (Electron MessagePort, or WebSocket in browser mode).
 */
import type { EventSource, ServiceHandlers, Services } from '../../../shared/contract';
import { createMessagePortPair, serve, type MessagePortLike } from '../../../shared/rpc';
import { createPortholeClient, type PortholeClient } from './client';
import { openWebSocketPort, requestElectronPort } from './port-adapters';

export type { PortholeClient, ConnectionState, NotifyProxy, ServicesProxy } from './client';
export type { MessagePortLike } from '../../../shared/rpc';
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

/** Served by a Porthole host over HTTP(S): browser mode (Electron serves `porthole://`). */
function isBrowserMode(): boolean {
  return window.location.protocol === 'http:' || window.location.protocol === 'https:';
}

/**
 * The one-time link's token has done its work once this page loaded (the host answered
 * with the login cookie): take it out of the address bar and the history entry, so
 * neither a bookmark, a shared screen nor the history shows it.
 */
function forgetLinkToken(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url);
}

/** The RPC endpoint of the host that served this page; the login cookie goes along. */
function webSocketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/rpc`;
}

/**
 * Connects to the core: in Electron through the MessagePort the preload hands over; in a
 * browser through a WebSocket to the page's own origin, authenticated by the session
 * cookie the host set when the page loaded, reconnecting by itself if the socket drops.
 */
export async function connectPorthole(): Promise<PortholeClient> {
  if (!isBrowserMode()) {
    return createPortholeClient(await requestElectronPort(), 'electron');
  }
  forgetLinkToken();
  const url = webSocketUrl();
  return createPortholeClient(await openWebSocketPort(url), 'browser', {
    reopen: () => openWebSocketPort(url),
  });
}

export interface InMemoryOptions {
  readonly mode?: PortholeClient['mode'];
  /** `json` copies messages the way the WebSocket does; default `structured`. */
  readonly clone?: 'structured' | 'json';
  /** Stands between the client and its port (a test counting what crosses it). */
  readonly wrapPort?: (port: MessagePortLike) => MessagePortLike;
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
  const port = options.wrapPort?.(clientPort) ?? clientPort;
  return createPortholeClient(port, options.mode ?? 'browser');
}
