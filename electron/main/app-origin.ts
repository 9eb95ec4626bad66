/**
 * The app is served from its own privileged scheme, `porthole://app/`, not file://:
 * file:// pages share one origin with every local file, while this gives the renderer
 * an origin of its own that navigation and IPC checks can pin.
 */
export const appScheme = 'porthole';
export const appHost = 'app';
export const appOrigin = `${appScheme}://${appHost}`;
export const appEntryUrl = `${appOrigin}/index.html`;

/**
 * Whether a URL belongs to the app. Compared by scheme and host: WHATWG URL gives
 * custom schemes an opaque origin ("null"), so comparing `.origin` would be meaningless.
 */
export function isAppUrl(url: string | undefined | null): boolean {
  if (url === undefined || url === null) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${appScheme}:` && parsed.host === appHost;
  } catch {
    return false;
  }
}
