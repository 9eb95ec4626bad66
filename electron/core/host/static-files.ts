import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const mimeTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export function mimeTypeOf(path: string): string {
  return mimeTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Maps a URL path to a file inside `root`, or undefined when it would leave the root
 * (`..`, encoded slashes or dots, NUL bytes, absolute paths). Symlinks are resolved and
 * checked again by `serveFile`.
 */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.some((segment) => segment === '..')) return undefined;
  const absoluteRoot = resolve(root);
  const candidate = resolve(absoluteRoot, ...segments);
  const inside = relative(absoluteRoot, candidate);
  if (inside.startsWith('..') || isAbsolute(inside)) return undefined;
  return candidate;
}

/** Serves one file (GET or HEAD); false when it is not a regular file inside the root. */
export async function serveFile(
  request: IncomingMessage,
  response: ServerResponse,
  root: string,
  path: string,
  cacheControl: string,
): Promise<boolean> {
  let real: string;
  let size: number;
  try {
    real = await realpath(path);
    const realRoot = await realpath(root);
    if (real !== realRoot && !real.startsWith(realRoot + sep)) return false;
    const info = await stat(real);
    if (!info.isFile()) return false;
    size = info.size;
  } catch {
    return false;
  }
  response.statusCode = 200;
  response.setHeader('Content-Type', mimeTypeOf(real));
  response.setHeader('Content-Length', size);
  response.setHeader('Cache-Control', cacheControl);
  if (request.method === 'HEAD') {
    response.end();
    return true;
  }
  await new Promise<void>((done) => {
    const stream = createReadStream(real);
    stream.on('error', () => {
      response.destroy();
      done();
    });
    stream.on('end', done);
    stream.pipe(response);
  });
  return true;
}

export function joinRoot(root: string, file: string): string {
  return join(resolve(root), file);
}
