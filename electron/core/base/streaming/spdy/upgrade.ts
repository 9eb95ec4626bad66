/**
 * The SPDY side of the upgrade (../upgrade.ts has the skeleton: deadline, abort, dial, TLS,
 * refusals): the HTTP request that switches a connection to SPDY/3.1, and the session on it.
 */
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { describeError } from '../dial';
import { upgradeStream, type UpgradeContext, type UpgradeOptions } from '../upgrade';
import { SpdyConnectionImpl, type SpdyConnection } from './connection';

export const SPDY_UPGRADE_PROTOCOL = 'SPDY/3.1';
export const STREAM_PROTOCOL_HEADER = 'X-Stream-Protocol-Version';

export interface SpdyUpgradeOptions extends UpgradeOptions {
  /** SYN_REPLY timeout of the session's createStream (default 30 s). */
  readonly streamTimeoutMs?: number;
}

/** How the app upgrades to SPDY; replaceable so tests can force a refusal. */
export type SpdyUpgrade = (options: SpdyUpgradeOptions) => Promise<SpdyConnection>;

/**
 * Connects to a CRI stream URL and upgrades the connection to SPDY/3.1, as client-go's
 * SPDY round tripper does: `POST` with `Connection: Upgrade`, `Upgrade: SPDY/3.1` and one
 * `X-Stream-Protocol-Version` line per offered protocol (the runtime reads every line and
 * picks the first it supports). Fails with an UpgradeError (see ../upgrade.ts).
 */
export const upgradeToSpdy: SpdyUpgrade = (options) =>
  upgradeStream(options, 'SPDY', (context) => exchange(context, options));

function exchange(context: UpgradeContext, options: SpdyUpgradeOptions): Promise<SpdyConnection> {
  const { socket, raw, target, signal } = context;
  return new Promise<SpdyConnection>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const req = request({
      method: 'POST',
      host: target.host,
      port: target.port,
      path: target.path,
      setHost: false,
      headers: {
        Host: target.hostHeader,
        Connection: 'Upgrade',
        Upgrade: SPDY_UPGRADE_PROTOCOL,
        [STREAM_PROTOCOL_HEADER]: [...context.protocols],
        'Content-Length': '0',
      },
      // Our own connection (dialled, maybe tunnelled, maybe TLS): Node's HTTP client runs
      // on any Duplex.
      createConnection: () => socket,
    });
    const onAbort = (): void => {
      settle(() => reject(context.aborted()));
      req.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error: Error) => {
      settle(() =>
        reject(
          context.fail('unavailable', "The runtime's stream server closed the connection.", {
            detail: describeError(error),
            cause: error,
          }),
        ),
      );
    });
    // Node emits 'upgrade' for a 101 only.
    req.on('upgrade', (response: IncomingMessage, upgraded: Duplex, head: Buffer) => {
      const problem = checkSwitch(response, context.protocols);
      if (problem !== undefined) {
        upgraded.destroy();
        settle(() => reject(context.badSwitch(problem)));
        return;
      }
      settle(() =>
        resolve(
          new SpdyConnectionImpl(upgraded, {
            protocol: chosenProtocol(response) ?? '',
            head,
            ...(upgraded !== raw && { underlying: raw }),
            ...(options.streamTimeoutMs !== undefined && {
              streamTimeoutMs: options.streamTimeoutMs,
            }),
            // The bound the caller set on the upgrade also bounds a frame that stalls.
            frameTimeoutMs: context.timeoutMs,
          }),
        ),
      );
    });
    req.on('response', (response: IncomingMessage) => {
      // Not upgraded: the body is the runtime's explanation.
      void context.refused(response).then((error) => {
        settle(() => reject(error));
        req.destroy();
      });
    });
    req.end();
  });
}

function chosenProtocol(response: IncomingMessage): string | undefined {
  const header = response.headers[STREAM_PROTOCOL_HEADER.toLowerCase()];
  return Array.isArray(header) ? header[0] : header;
}

/** A 101 that is not a switch to SPDY/3.1 with one of our protocols: why, or undefined. */
function checkSwitch(response: IncomingMessage, offered: readonly string[]): string | undefined {
  const upgrade = response.headers.upgrade ?? '';
  if (upgrade.toLowerCase() !== SPDY_UPGRADE_PROTOCOL.toLowerCase()) {
    return `The runtime switched to ${JSON.stringify(upgrade)} instead of ${SPDY_UPGRADE_PROTOCOL}.`;
  }
  const protocol = chosenProtocol(response);
  // None named: a server from before negotiation, which speaks v1 (see handlers.ts).
  if (protocol !== undefined && protocol !== '' && !offered.includes(protocol)) {
    return `The runtime chose the stream protocol ${JSON.stringify(protocol)}, which was not offered.`;
  }
  return undefined;
}
