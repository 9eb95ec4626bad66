import { useMemo, useSyncExternalStore } from 'react';

/** Colours a canvas chart needs, resolved from the app's CSS tokens for the current theme. */
export interface ChartTheme {
  readonly text: string;
  readonly grid: string;
  readonly cursor: string;
  /** Series colours, in the order series are given them. */
  readonly palette: readonly string[];
}

/** How many series colours stats.css defines (--stats-series-1 …). */
export const paletteSize = 8;

const darkQuery = '(prefers-color-scheme: dark)';

/**
 * The theme in force: the user's choice (data-theme on <html>) and the system's. A
 * snapshot string, so React re-renders exactly when either changes.
 */
function subscribeToScheme(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  const media = window.matchMedia(darkQuery);
  media.addEventListener('change', onChange);
  return () => {
    observer.disconnect();
    media.removeEventListener('change', onChange);
  };
}

function schemeSnapshot(): string {
  const chosen = document.documentElement.getAttribute('data-theme') ?? 'system';
  return `${chosen}:${window.matchMedia(darkQuery).matches ? 'dark' : 'light'}`;
}

/**
 * Canvas can't read `var(--text)` (and the tokens are `light-dark()` pairs): each colour is
 * resolved by letting the browser compute it on a probe element.
 */
function resolveColors(values: readonly string[]): string[] {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  document.body.append(probe);
  try {
    return values.map((value) => {
      probe.style.color = '';
      probe.style.color = value;
      return getComputedStyle(probe).color;
    });
  } finally {
    probe.remove();
  }
}

export function useChartTheme(): ChartTheme {
  const scheme = useSyncExternalStore(subscribeToScheme, schemeSnapshot);
  return useMemo(() => {
    void scheme;
    const series = Array.from({ length: paletteSize }, (_, i) => `var(--stats-series-${i + 1})`);
    const [text = '', grid = '', cursor = '', ...palette] = resolveColors([
      'var(--text-muted)',
      'var(--border)',
      'var(--text-faint)',
      ...series,
    ]);
    return { text, grid, cursor, palette };
  }, [scheme]);
}
