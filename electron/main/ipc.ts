import type { IpcMain, IpcMainEvent, MessageChannelMain as MessageChannelMainType } from 'electron';
import type { EventSource, ServiceHandlers } from '../../shared/contract';
import { DisposableStore, toDisposable, type Disposable } from '../../shared/lifecycle';
import type { AppError } from '../../shared/errors';
import { serve } from '../../shared/rpc';
import { isAppUrl } from './app-origin';
import { fromMessagePortMain } from './message-port';

/** The one IPC channel: the page asks for a port; the answer comes on `porthole:port`. */
export const helloChannel = 'porthole:hello';
export const portChannel = 'porthole:port';

/**
 * Only the app's own top-level frame may open the pipe: not an iframe, not a page the
 * window was somehow navigated to, not a frame that is already gone.
 */
export function isTrustedSender(event: Pick<IpcMainEvent, 'senderFrame' | 'sender'>): boolean {
  const frame = event.senderFrame;
  if (frame === null || frame.isDestroyed()) return false;
  if (frame !== event.sender.mainFrame) return false;
  return isAppUrl(frame.url);
}

export interface IpcDeps {
  readonly ipcMain: IpcMain;
  readonly MessageChannelMain: typeof MessageChannelMainType;
  readonly services: ServiceHandlers;
  readonly events: EventSource;
  /** Hears refused senders, for the log. */
  readonly onRefused?: (url: string) => void;
  /** Hears what the RPC refused or could not send on a served port, for the log. */
  readonly onProtocolError?: (error: AppError) => void;
}

/**
 * Answers each trusted hello with a fresh MessageChannel: one end is served with the
 * contract here, the other is handed to the page. One served port per frame: a reload
 * (or a page that says hello again) gets a new pipe and the frame's previous one is
 * closed at once, its calls cancelled and its subscriptions disposed, so a page can't
 * make the core serve more and more ports.
 */
export function registerIpc(deps: IpcDeps): Disposable {
  const store = new DisposableStore();
  const served = new Map<string, { readonly close: () => void }>();
  const onHello = (event: IpcMainEvent): void => {
    if (!isTrustedSender(event)) {
      deps.onRefused?.(event.senderFrame?.url ?? '(no frame)');
      return;
    }
    const frame = event.senderFrame!;
    const key = `${frame.processId}:${frame.routingId}`;
    served.get(key)?.close();
    const { port1, port2 } = new deps.MessageChannelMain();
    const port = fromMessagePortMain(port1);
    const serving = store.add(
      serve(port, deps.services, deps.events, {
        ...(deps.onProtocolError !== undefined && { onProtocolError: deps.onProtocolError }),
      }),
    );
    let ended = false;
    const entry = {
      close: () => {
        if (ended) return;
        ended = true;
        if (served.get(key) === entry) served.delete(key);
        serving.dispose();
        store.delete(serving);
        port.close();
      },
    };
    served.set(key, entry);
    port.onClose(entry.close);
    frame.postMessage(portChannel, null, [port2]);
  };
  deps.ipcMain.on(helloChannel, onHello);
  store.add(toDisposable(() => deps.ipcMain.off(helloChannel, onHello)));
  return store;
}
