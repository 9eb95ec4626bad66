/**
 * Opens a port-forward transport for one sandbox, as client-go's fallback dialer does:
 * SPDY first; when the runtime refuses the SPDY upgrade, WebSocket. Every attempt calls the
 * PortForward RPC itself: stream URLs are single use, even a refused one.
 */
import { AppError } from '../../../../../shared/errors';
import type { ForwardTransportChoice } from '../../../../../shared/model';
import type { Dialer } from '../dial';
import { isUpgradeFailure, upgradeToSpdy, type UpgradeOptions } from '../spdy';
import type { SpdySession } from '../spdy';
import type { StreamTlsOptions } from '../websocket';
import { SPDY_PORT_FORWARD_PROTOCOL, SpdyPortForwardTransport } from './spdy';
import type { PortForwardTransport, StreamUrlRequest } from './types';
import { WebSocketPortForwardTransport } from './websocket';

export type SpdyUpgrade = (options: UpgradeOptions) => Promise<SpdySession>;

export interface PortForwardConnectOptions {
  readonly transport: ForwardTransportChoice;
  /** The pod ports, for the SPDY RPC (the runtime ignores the list on SPDY, but checks it). */
  readonly ports: readonly number[];
  /** Calls PortForward for the sandbox: a fresh URL each time. */
  readonly requestUrl: StreamUrlRequest;
  readonly dialer?: Dialer;
  readonly tls?: StreamTlsOptions;
  /** Bound on each upgrade (dial, TLS and HTTP). */
  readonly upgradeTimeoutMs?: number;
  /** Bound on opening one connection's SPDY stream pair. */
  readonly pairTimeoutMs?: number;
  readonly signal?: AbortSignal;
  /** The SPDY upgrade; replaceable so tests can force a refusal. */
  readonly upgradeSpdy?: SpdyUpgrade;
}

export interface ConnectedTransport {
  readonly transport: PortForwardTransport;
  /** Why `auto` ended on WebSocket: the SPDY refusal, in the runtime's words. */
  readonly fallbackReason?: string;
}

/**
 * Fall back when the runtime answered and refused SPDY (an HTTP status instead of 101, or a
 * 101 with another protocol): WebSocket may work. Not when it could not be reached, timed out
 * or we cancelled: WebSocket would fail the same way.
 */
export function shouldFallBack(error: unknown): boolean {
  return isUpgradeFailure(error) && error.status !== undefined;
}

function wsTransport(options: PortForwardConnectOptions): WebSocketPortForwardTransport {
  return new WebSocketPortForwardTransport({
    requestUrl: options.requestUrl,
    ...(options.dialer !== undefined && { dialer: options.dialer }),
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.upgradeTimeoutMs !== undefined && { timeoutMs: options.upgradeTimeoutMs }),
  });
}

async function spdyTransport(
  options: PortForwardConnectOptions,
): Promise<SpdyPortForwardTransport> {
  const { url } = await options.requestUrl(options.ports, options.signal);
  const session = await (options.upgradeSpdy ?? upgradeToSpdy)({
    url,
    protocols: [SPDY_PORT_FORWARD_PROTOCOL],
    ...(options.dialer !== undefined && { dialer: options.dialer }),
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.upgradeTimeoutMs !== undefined && { timeoutMs: options.upgradeTimeoutMs }),
    ...(options.signal !== undefined && { signal: options.signal }),
  });
  if (session.protocol !== SPDY_PORT_FORWARD_PROTOCOL) {
    // upgradeToSpdy checks this too; a replacement might not.
    session.dispose();
    throw new AppError({
      code: 'protocol-error',
      message: `The runtime chose the stream protocol "${session.protocol}" for a port-forward.`,
    });
  }
  return new SpdyPortForwardTransport(session, options.pairTimeoutMs);
}

/**
 * SPDY resolves once the session is up. WebSocket resolves at once: it has nothing to set up
 * until the first connection (the runtime dials the pod's port at upgrade time).
 */
export async function connectPortForward(
  options: PortForwardConnectOptions,
): Promise<ConnectedTransport> {
  switch (options.transport) {
    case 'websocket':
      return { transport: wsTransport(options) };
    case 'spdy':
      return { transport: await spdyTransport(options) };
    case 'auto':
      try {
        return { transport: await spdyTransport(options) };
      } catch (error) {
        if (!shouldFallBack(error)) throw error;
        const reason = error instanceof AppError ? error.message : String(error);
        const detail = error instanceof AppError && error.detail ? ` (${error.detail})` : '';
        return { transport: wsTransport(options), fallbackReason: `${reason}${detail}` };
      }
  }
}
