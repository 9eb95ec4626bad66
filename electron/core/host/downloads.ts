/**
 * File downloads as the page fetches them, in browser mode (the host) and in Electron
 * (the app protocol): the address, and the headers that make the browser save the bytes.
 * Kept apart from host.ts so Electron's main bundles none of the browser-mode server.
 */
import type { Readable } from 'node:stream';

/** What a download address streams: the core's DownloadBody. */
export interface HostDownload {
  readonly fileName: string;
  readonly contentType: string;
  readonly body: Readable;
}

/** Where file downloads are fetched (the core's `downloadPathPrefix`). */
export const downloadsPrefix = '/files/download/';

/** `attachment` with the name as ASCII (for old clients) and as UTF-8 (RFC 6266 / 5987). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const utf8 = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
