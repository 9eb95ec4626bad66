import type { ServerResponse } from 'node:http';

/**
 * The page's Content Security Policy: only our own scripts, no eval, no plugins, no
 * framing, and network access only back to this host (HTTP and its WebSocket). Inline
 * styles stay allowed because the terminal and editor inject <style> elements. Without an
 * origin (Electron) there is no WebSocket to allow.
 */
export function contentSecurityPolicy(origin?: string): string {
  const ws = origin === undefined ? '' : ` ${origin.replace(/^http/, 'ws')}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${ws}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers every response carries. `no-referrer` matters: the page URL holds the token. */
export function setSecurityHeaders(response: ServerResponse, origin: string): void {
  response.setHeader('Content-Security-Policy', contentSecurityPolicy(origin));
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  response.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}
