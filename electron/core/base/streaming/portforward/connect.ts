/**
 * Opens a port-forward transport for one sandbox, as client-go's fallback dialer does:
 * SPDY first; when the runtime refuses the SPDY upgrade, WebSocket. Every attempt calls the
 * PortForward RPC itself: stream URLs are single use, even a refused one.
 */
import { AppError } from '../../../../../shared/errors';
import type { ForwardTransportChoice } from '../../../../../shared/model';
import type { Dialer, StreamTlsOptions } from '../dial';
import { withFallback } from '../fallback';
import { upgradeToSpdy, type SpdyUpgrade } from '../spdy';
import { SPDY_PORT_FORWARD_PROTOCOL, SpdyPortForwardTransport } from './spdy';
import type { PortForwardTransport, StreamUrlRequest } from './types';
import { WebSocketPortForwardTransport } from './websocket';

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
      // The rule exec and attach follow too (../fallback.ts): WebSocket when the runtime
      // answered and refused SPDY.
      return withFallback<ConnectedTransport>(
        async () => ({ transport: await spdyTransport(options) }),
        (error) => {
          const reason = error instanceof AppError ? error.message : String(error);
          const detail = error instanceof AppError && error.detail ? ` (${error.detail})` : '';
          return Promise.resolve({
            transport: wsTransport(options),
            fallbackReason: `${reason}${detail}`,
          });
        },
      )();
  }
}
