/**
 * A window-level handle for the terminal bench, present only in builds that define
 * `__PORTHOLE_TERMINAL_DEBUG__` (scripts/bench/terminal.ts builds one): reading xterm's
 * buffer is the only way to time "keystroke to glyph in the buffer" without waiting for a
 * paint. Production builds never install it.
 */
import type { Terminal } from '@xterm/xterm';
import type { PortholeClient } from '../../platform';

declare const __PORTHOLE_TERMINAL_DEBUG__: boolean | undefined;

export interface TerminalDebugEntry {
  readonly paneId: string;
  readonly title: string;
  /** The node and container the pane's terminal runs in. */
  readonly nodeId: string;
  readonly containerId: string;
  readonly term: Terminal;
  /** Output bytes received from the core so far. */
  readonly bytesReceived: () => number;
  /**
   * An xterm like this pane's (options, renderer, size, place) with nothing of Porthole
   * behind it: what the bench writes the same flood into, for the limit.
   */
  readonly twin: () => { readonly term: Terminal; dispose(): void };
}

export interface TerminalDebugHandle {
  terminals(): readonly TerminalDebugEntry[];
  /**
   * The page's client of the core: the bench opens a terminal of its own with it and
   * acknowledges what arrives without drawing it, for the transport's ceiling.
   */
  readonly client: PortholeClient;
}

declare global {
  interface Window {
    portholeTerminalDebug?: TerminalDebugHandle;
  }
}

export const terminalDebugEnabled =
  typeof __PORTHOLE_TERMINAL_DEBUG__ !== 'undefined' && __PORTHOLE_TERMINAL_DEBUG__ === true;

export function installTerminalDebug(handle: TerminalDebugHandle): () => void {
  if (!terminalDebugEnabled || typeof window === 'undefined') return () => undefined;
  window.portholeTerminalDebug = handle;
  return () => {
    if (window.portholeTerminalDebug === handle) delete window.portholeTerminalDebug;
  };
}
