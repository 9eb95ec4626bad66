/**
 * xterm.js themes from the app's colours. The palette lives in terminal.css as CSS
 * variables (light-dark() pairs, like the rest of the app); xterm needs concrete colours,
 * so they are resolved through a probe element and re-read whenever the theme changes
 * (the user's choice on <html data-theme>, or the system's preference).
 */
import type { ITheme } from '@xterm/xterm';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';

const ansiNames = [
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
  'brightBlack',
  'brightRed',
  'brightGreen',
  'brightYellow',
  'brightBlue',
  'brightMagenta',
  'brightCyan',
  'brightWhite',
] as const;

/** theme key → the CSS variable in terminal.css. */
const variables: Readonly<Record<string, string>> = {
  background: '--term-bg',
  foreground: '--term-fg',
  cursor: '--term-cursor',
  cursorAccent: '--term-bg',
  // The find bar's gutter on the right: no line of its own between it and the text.
  overviewRulerBorder: '--term-bg',
  selectionBackground: '--term-selection',
  selectionInactiveBackground: '--term-selection-inactive',
  scrollbarSliderBackground: '--term-scrollbar',
  scrollbarSliderHoverBackground: '--term-scrollbar-hover',
  scrollbarSliderActiveBackground: '--term-scrollbar-active',
  ...Object.fromEntries(
    ansiNames.map((name) => [
      name,
      `--term-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    ]),
  ),
};

export interface TerminalColors {
  readonly theme: ITheme;
  /** For the find bar's highlights (opaque `#rrggbb`). */
  readonly match: string;
  readonly activeMatch: string;
  /** The monospace font stack the app uses. */
  readonly fontFamily: string;
}

/**
 * `rgb(…)` / `rgba(…)` (what getComputedStyle returns) → `#rrggbb` or `#rrggbbaa`: the
 * one format every xterm option takes (decorations insist on `#rrggbb`).
 */
export function cssColorToHex(value: string, withAlpha = true): string | undefined {
  const match = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+%?))?\s*\)$/.exec(
    value.trim(),
  );
  if (match === null) return value.startsWith('#') ? value : undefined;
  const hex = (n: number): string =>
    Math.round(Math.min(255, Math.max(0, n)))
      .toString(16)
      .padStart(2, '0');
  const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  const alphaText = match[4];
  const alpha =
    alphaText === undefined
      ? 1
      : alphaText.endsWith('%')
        ? Number(alphaText.slice(0, -1)) / 100
        : Number(alphaText);
  const rgb = `#${hex(r)}${hex(g)}${hex(b)}`;
  return withAlpha && alpha < 1 ? `${rgb}${hex(alpha * 255)}` : rgb;
}

const fallbackFont = "ui-monospace, 'DejaVu Sans Mono', Menlo, monospace";

/** Resolves the variables as the document is styled right now. */
export function readTerminalColors(): TerminalColors {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  document.body.append(probe);
  const resolve = (variable: string, withAlpha = true): string | undefined => {
    probe.style.color = '';
    probe.style.color = `var(${variable})`;
    return cssColorToHex(getComputedStyle(probe).color, withAlpha);
  };
  try {
    const theme: Record<string, string> = {};
    for (const [key, variable] of Object.entries(variables)) {
      const value = resolve(variable);
      if (value !== undefined) theme[key] = value;
    }
    const font = getComputedStyle(document.documentElement).getPropertyValue('--font-mono').trim();
    return {
      theme,
      match: resolve('--term-match', false) ?? '#f6d365',
      activeMatch: resolve('--term-match-active', false) ?? '#f0a030',
      fontFamily: font === '' ? fallbackFont : font,
    };
  } finally {
    probe.remove();
  }
}

/** Calls `onChange` with fresh colours when the app's theme changes. */
export function watchTerminalColors(onChange: (colors: TerminalColors) => void): Disposable {
  if (typeof document === 'undefined') return toDisposable(() => undefined);
  let frame: number | undefined;
  const reread = (): void => {
    // The attribute change and the media query may both fire: read once, after styles apply.
    if (frame !== undefined) return;
    frame = requestAnimationFrame(() => {
      frame = undefined;
      onChange(readTerminalColors());
    });
  };
  const observer = new MutationObserver(reread);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  const media =
    typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
  media?.addEventListener('change', reread);
  return toDisposable(() => {
    observer.disconnect();
    media?.removeEventListener('change', reread);
    if (frame !== undefined) cancelAnimationFrame(frame);
  });
}
