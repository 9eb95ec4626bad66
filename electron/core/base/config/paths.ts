import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Where Porthole keeps its settings: `$XDG_CONFIG_HOME/porthole`, else
 * `~/.config/porthole` (the XDG rule: a relative XDG_CONFIG_HOME is ignored). Tests and
 * the Electron shell pass their own directory instead of calling this.
 */
export function defaultConfigDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(home, '.config');
  return join(base, 'porthole');
}
