/**
 * Who may use a browser-mode host. The URL Porthole prints carries a one-time bootstrap
 * token; the page it opens is answered with a login cookie (HttpOnly, so no script on
 * the page can read it; SameSite=Strict, so no other site's page makes the browser send
 * it), and the page then removes the token from its address with history.replaceState.
 * Every RPC WebSocket needs the cookie. A printed token that has been used is worth
 * nothing, so one left in a terminal's scrollback, a browser's history or a launcher file
 * gives nobody access. The login secret itself is never printed.
 */
import type { IncomingMessage } from 'node:http';
import { createToken, tokenMatches } from './token';

/** Unused links kept at most; issuing another forgets the oldest. */
const maxPendingLinks = 16;

export class BrowserLogin {
  private readonly secret = createToken();
  private readonly pending: { token: string; onUsed: (() => void) | undefined }[] = [];
  /** The cookie's name: per port (cookies are not), `__Host-` with TLS (it then must be Secure). */
  readonly cookieName: string;

  constructor(
    port: number,
    private readonly secure: boolean,
  ) {
    this.cookieName = `${secure ? '__Host-' : ''}porthole-${port}`;
  }

  /** A new one-time token for a link; `onUsed` runs when a browser spends it. */
  issue(onUsed?: () => void): string {
    const token = createToken();
    this.pending.push({ token, onUsed });
    if (this.pending.length > maxPendingLinks) this.pending.shift();
    return token;
  }

  /** Spends `presented` if it is an unused link token (each is good once). */
  redeem(presented: string): boolean {
    // Every pending token is compared, in constant time each: no early exit reveals which.
    let found = -1;
    for (const [index, entry] of this.pending.entries()) {
      if (tokenMatches(presented, entry.token)) found = index;
    }
    if (found < 0) return false;
    const [entry] = this.pending.splice(found, 1);
    entry?.onUsed?.();
    return true;
  }

  /** The Set-Cookie header that logs a browser in. */
  setCookie(): string {
    return [
      `${this.cookieName}=${this.secret}`,
      'Path=/',
      'HttpOnly',
      'SameSite=Strict',
      ...(this.secure ? ['Secure'] : []),
    ].join('; ');
  }

  /** `name=value`, for clients that are not browsers (tests, benches) to send as Cookie. */
  get cookie(): string {
    return `${this.cookieName}=${this.secret}`;
  }

  /** Whether the request carries this login's cookie. */
  admits(request: IncomingMessage): boolean {
    const header = request.headers.cookie;
    if (header === undefined) return false;
    let admitted = false;
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at < 0 || part.slice(0, at).trim() !== this.cookieName) continue;
      if (tokenMatches(part.slice(at + 1).trim(), this.secret)) admitted = true;
    }
    return admitted;
  }
}
