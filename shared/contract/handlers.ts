import type { Services } from './services';

/**
 * The part of an AbortSignal the contract relies on. shared has no DOM or Node types; at
 * run time this is the platform's own AbortSignal (browsers and Node have the same one).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What a dispatcher tells a service about the call it is serving. */
export interface CallContext {
  /** Aborted when the caller cancels the call or goes away. */
  readonly signal: AbortSignalLike;
}

type WithContext<F> = F extends (...args: infer A) => infer R
  ? (...args: [...A, context?: CallContext]) => R
  : never;

/**
 * A service as a server implements it: each method may take a CallContext right after
 * its declared parameters (the dispatcher passes the optional ones as undefined to keep
 * the position fixed). A plain `Services` implementation that ignores the context fits too.
 */
export type ServiceHandlers = {
  readonly [S in keyof Services]: {
    readonly [M in keyof Services[S]]: WithContext<Services[S][M]>;
  };
};

/** One service's handlers, e.g. `class X implements ServiceHandler<'nodes'>`. */
export type ServiceHandler<S extends keyof Services> = ServiceHandlers[S];
