/** The terminal settings, kept in the browser's storage across sessions. */

export type RendererPreference = 'auto' | 'webgl' | 'dom';

export interface TerminalSettings {
  /** Lines each terminal keeps above the screen. */
  readonly scrollback: number;
  readonly fontSize: number;
  /**
   * `auto`: WebGL when the GPU does it (a software rasteriser is slower than the DOM
   * renderer); `webgl` always when available; `dom` never.
   */
  readonly renderer: RendererPreference;
  /**
   * xterm's screen-reader mode: output goes to a live region and the buffer to an
   * accessibility tree a screen reader can read line by line. Costs some speed.
   */
  readonly screenReaderMode: boolean;
  /** Tab and Shift+Tab move focus out of the terminal instead of going to the program (Ctrl+M). */
  readonly tabMovesFocus: boolean;
  /** Ctrl+K in a terminal: the command palette (default) or the program (readline's kill-line). */
  readonly ctrlKToProgram: boolean;
}

export const defaultSettings: TerminalSettings = {
  scrollback: 10_000,
  fontSize: 13,
  renderer: 'auto',
  screenReaderMode: false,
  tabMovesFocus: false,
  ctrlKToProgram: false,
};

/** Scrollback costs about 12 bytes a cell: 50,000 lines of 200 columns is 120 MB a terminal. */
export const scrollbackChoices = [1_000, 5_000, 10_000, 25_000, 50_000] as const;
export const fontSizeLimits = { min: 8, max: 32 } as const;

const storageKey = 'porthole.terminal.settings';

function clampInteger(value: unknown, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/** Whatever was stored (or typed), made valid. */
export function normalizeSettings(value: unknown): TerminalSettings {
  const input =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const renderer = input.renderer;
  return {
    scrollback: clampInteger(
      input.scrollback,
      0,
      scrollbackChoices[scrollbackChoices.length - 1] ?? 50_000,
      defaultSettings.scrollback,
    ),
    fontSize: clampInteger(
      input.fontSize,
      fontSizeLimits.min,
      fontSizeLimits.max,
      defaultSettings.fontSize,
    ),
    renderer:
      renderer === 'webgl' || renderer === 'dom' || renderer === 'auto'
        ? renderer
        : defaultSettings.renderer,
    screenReaderMode: flag(input.screenReaderMode, defaultSettings.screenReaderMode),
    tabMovesFocus: flag(input.tabMovesFocus, defaultSettings.tabMovesFocus),
    ctrlKToProgram: flag(input.ctrlKToProgram, defaultSettings.ctrlKToProgram),
  };
}

function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined; // storage disabled (a sandboxed or private window)
  }
}

export function loadSettings(): TerminalSettings {
  try {
    const text = storage()?.getItem(storageKey);
    return normalizeSettings(text === null || text === undefined ? {} : JSON.parse(text));
  } catch {
    return defaultSettings;
  }
}

export function saveSettings(settings: TerminalSettings): void {
  try {
    storage()?.setItem(storageKey, JSON.stringify(settings));
  } catch {
    // Full or disabled storage: the settings still hold for this window.
  }
}
