import type { AbortSignalLike } from '../contract';

interface AbortControllerLike {
  readonly signal: AbortSignalLike;
  abort(reason?: unknown): void;
}

/**
 * shared is compiled without DOM or Node types, but every runtime Porthole runs on
 * (Node 20, Electron's renderer, browsers) has the same global AbortController.
 */
export function createAbortController(): AbortControllerLike {
  const Controller = (globalThis as { AbortController?: new () => AbortControllerLike })
    .AbortController;
  if (Controller === undefined) throw new Error('AbortController is not available here.');
  return new Controller();
}
