/**
 * xterm.js and its addons, loaded on first use: a few hundred KiB the app's start doesn't
 * need to parse. One load for every terminal; a failed load (a missing chunk after an
 * update) is retried by the next terminal rather than remembered.
 */
import type { FitAddon } from '@xterm/addon-fit';
import type { SearchAddon } from '@xterm/addon-search';
import type { SerializeAddon } from '@xterm/addon-serialize';
import type { Unicode11Addon } from '@xterm/addon-unicode11';
import type { WebLinksAddon } from '@xterm/addon-web-links';
import type { WebglAddon } from '@xterm/addon-webgl';
import type { Terminal } from '@xterm/xterm';

export interface XtermModules {
  readonly Terminal: typeof Terminal;
  readonly FitAddon: typeof FitAddon;
  readonly SearchAddon: typeof SearchAddon;
  readonly SerializeAddon: typeof SerializeAddon;
  readonly Unicode11Addon: typeof Unicode11Addon;
  readonly WebLinksAddon: typeof WebLinksAddon;
  readonly WebglAddon: typeof WebglAddon;
}

let loading: Promise<XtermModules> | undefined;

export function loadXterm(): Promise<XtermModules> {
  loading ??= Promise.all([
    import('@xterm/xterm'),
    import('@xterm/addon-fit'),
    import('@xterm/addon-search'),
    import('@xterm/addon-serialize'),
    import('@xterm/addon-unicode11'),
    import('@xterm/addon-web-links'),
    import('@xterm/addon-webgl'),
    import('@xterm/xterm/css/xterm.css'),
  ]).then(
    ([xterm, fit, search, serialize, unicode11, webLinks, webgl]) => ({
      Terminal: xterm.Terminal,
      FitAddon: fit.FitAddon,
      SearchAddon: search.SearchAddon,
      SerializeAddon: serialize.SerializeAddon,
      Unicode11Addon: unicode11.Unicode11Addon,
      WebLinksAddon: webLinks.WebLinksAddon,
      WebglAddon: webgl.WebglAddon,
    }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
