import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { Protocol, Net } from 'electron';
// The modules themselves, not the host's index: main must not bundle the browser-mode server.
import { contentDisposition, downloadsPrefix, type HostDownload } from '../core/host/downloads';
import { contentSecurityPolicy } from '../core/host/security-headers';
import { mimeTypeOf, resolveStaticPath } from '../core/host/static-files';
import { appHost, appScheme } from './app-origin';
import { logger } from '../core/base/log';

const shellLog = logger('shell');

/** Must run before `app` is ready: makes `porthole://` a standard, secure scheme. */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: appScheme, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The CSP of the app in Electron: the browser-mode policy minus the WebSocket. */
export const appContentSecurityPolicy = contentSecurityPolicy();

/**
 * Serves the built renderer on `porthole://app/`: files from `rendererDir` only (the
 * same traversal checks as the browser-mode host), index.html for app routes, and the
 * CSP on every response; and prepared file downloads under `/files/download/`, streamed
 * from the core (Electron's download manager saves them as the user chooses).
 */
export function handleAppProtocol(
  protocol: Pick<Protocol, 'handle'>,
  net: Pick<Net, 'fetch'>,
  rendererDir: string,
  downloads?: (transferId: string) => Promise<HostDownload | undefined>,
): void {
  protocol.handle(appScheme, async (request) => {
    const url = new URL(request.url);
    if (url.host !== appHost || request.method !== 'GET') return notFound();
    if (url.pathname.startsWith(downloadsPrefix) && downloads !== undefined) {
      const download = await downloads(url.pathname.slice(downloadsPrefix.length)).catch(
        (error: unknown) => shellLog.warn('A file download could not start.', error),
      );
      if (download === undefined) return notFound();
      return new Response(Readable.toWeb(download.body) as ReadableStream<Uint8Array>, {
        status: 200,
        headers: {
          'Content-Type': download.contentType,
          'Content-Disposition': contentDisposition(download.fileName),
          'Cache-Control': 'no-store',
        },
      });
    }
    const route = extname(url.pathname) === '' ? '/index.html' : url.pathname;
    const path = resolveStaticPath(rendererDir, route);
    if (path === undefined) return notFound();
    const file = await net
      .fetch(pathToFileURL(path).toString())
      .catch((error: unknown) =>
        shellLog.warn(`The app's file ${route} could not be read.`, error),
      );
    if (file === undefined || !file.ok) return notFound();
    return new Response(file.body, {
      status: 200,
      headers: {
        'Content-Type': mimeTypeOf(path),
        'Content-Security-Policy': appContentSecurityPolicy,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      },
    });
  });
}

function notFound(): Response {
  return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
}
