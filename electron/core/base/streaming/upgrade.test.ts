/**
 * The one upgrade skeleton (upgrade.ts) as both transports use it: the same answer from a
 * stream server must give the same error whether SPDY or WebSocket asked, because the
 * fallback rule and the user read that error, not the transport.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../../../../test/support/errors';
import { freePort } from '../../../../test/support/sshd';
import { shouldFallback } from './fallback';
import { upgradeToSpdy } from './spdy';
import { isRefusedUpgrade, isUpgradeFailure, parseStreamUrl, UpgradeError } from './upgrade';
import { connectWebSocket } from './websocket';

const OFFERED = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

type Answer = (request: IncomingMessage, socket: Duplex) => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTP server that answers every upgrade request with `answer`, written raw. */
async function server(answer: Answer): Promise<{ url: (path?: string) => string }> {
  // Upgraded sockets leave the server's bookkeeping: these are ours to destroy.
  const upgraded = new Set<Duplex>();
  const http: Server = createServer((_request, response) => response.writeHead(500).end());
  http.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    socket.on('error', () => undefined);
    answer(request, socket);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    upgraded.forEach((socket) => socket.destroy());
    http.closeAllConnections();
    await promisify(http.close.bind(http))();
  });
  const { port } = http.address() as AddressInfo;
  return { url: (path = '/exec/token') => `http://127.0.0.1:${port}${path}` };
}

function respond(status: number, body: string, headers: readonly string[] = []): Answer {
  return (_request, socket) => {
    socket.end(
      [
        `HTTP/1.1 ${status} Whatever`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Content-Type: text/plain',
        ...headers,
        '',
        body,
      ].join('\r\n'),
    );
  };
}

/** Each transport's upgrade, as the app calls it. */
const transports = {
  SPDY: (url: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    upgradeToSpdy({ url, protocols: OFFERED, ...extra }).then((session) => session.dispose()),
  WebSocket: (url: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    connectWebSocket({ url, protocols: OFFERED, ...extra }).then((ws) => ws.terminate()),
} as const;

/** The upgrade must fail with an UpgradeError, whatever the transport. */
async function failure(promise: Promise<unknown>): Promise<UpgradeError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(UpgradeError);
  return error as UpgradeError;
}

/** What of an UpgradeError must not depend on the transport. */
function shape(error: UpgradeError) {
  return {
    code: error.code,
    status: error.status,
    body: error.body,
    detail: error.detail,
    offered: error.offered,
    refused: isRefusedUpgrade(error),
    fallsBack: shouldFallback(error),
  };
}

describe('the upgrade skeleton, for both transports', () => {
  it('maps every refusal to one error per status, whichever transport asked', async () => {
    const cases: [number, string][] = [
      // A redirect is not followed (single-use URL): it is "not served here", as a 400.
      [301, 'failed-precondition'],
      [302, 'failed-precondition'],
      [307, 'failed-precondition'],
      [400, 'failed-precondition'],
      [401, 'unauthenticated'],
      [403, 'failed-precondition'],
      [404, 'not-found'],
      [418, 'failed-precondition'],
      [500, 'unavailable'],
      [503, 'unavailable'],
    ];
    for (const [status, code] of cases) {
      const { url } = await server(
        respond(status, `  the runtime says ${status}\n`, ['Location: http://elsewhere/']),
      );
      const spdy = await failure(transports.SPDY(url()));
      const ws = await failure(transports.WebSocket(url()));
      const expected = {
        code,
        status,
        body: `the runtime says ${status}`,
        detail: `HTTP ${status}: the runtime says ${status}`,
        offered: OFFERED,
        refused: true,
        fallsBack: true,
      };
      expect({ status, spdy: shape(spdy), ws: shape(ws) }).toEqual({
        status,
        spdy: expected,
        ws: expected,
      });
      // The message names the transport that was refused, and only that differs.
      expect(spdy.message.replace('SPDY', '<t>')).toBe(ws.message.replace('WebSocket', '<t>'));
    }
  });

  it("keeps a bounded prefix of a refusal's body", async () => {
    const { url } = await server(respond(403, 'x'.repeat(100_000)));
    for (const upgrade of Object.values(transports)) {
      const error = await failure(upgrade(url()));
      expect(error.body).toBe('x'.repeat(4096));
    }
  });

  it('treats a 101 that is not the switch asked for as a protocol error the other transport may fix', async () => {
    // A switch to a protocol that was never offered, with an otherwise valid answer.
    const { url } = await server((request, socket) => {
      const key = request.headers['sec-websocket-key'];
      const lines =
        typeof key === 'string'
          ? [
              'Upgrade: websocket',
              `Sec-WebSocket-Accept: ${createHash('sha1')
                .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
                .digest('base64')}`,
              'Sec-WebSocket-Protocol: v9.channel.k8s.io',
            ]
          : ['Upgrade: SPDY/3.1', 'X-Stream-Protocol-Version: v9.channel.k8s.io'];
      socket.write(
        ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', ...lines, '', ''].join('\r\n'),
      );
    });
    for (const upgrade of Object.values(transports)) {
      const error = await failure(upgrade(url()));
      expect(shape(error)).toMatchObject({
        code: 'protocol-error',
        status: 101,
        refused: true,
        fallsBack: true,
      });
    }
  });

  it('fails the same way on no answer, a cancel and an unreachable server, and none falls back', async () => {
    const { url: silent } = await server(() => undefined);
    // Nothing listens there.
    const unreachable = `http://127.0.0.1:${await freePort()}/exec/x`;
    for (const upgrade of Object.values(transports)) {
      const late = await failure(upgrade(silent(), { timeoutMs: 100 }));
      expect(shape(late)).toMatchObject({ code: 'deadline-exceeded', status: undefined });
      expect(late.message).toMatch(/within 100 ms/);

      const controller = new AbortController();
      const pending = upgrade(silent(), { signal: controller.signal });
      controller.abort();
      expect(shape(await failure(pending))).toMatchObject({ code: 'cancelled' });

      expect(shape(await failure(upgrade(unreachable)))).toMatchObject({
        code: 'unavailable',
        status: undefined,
        refused: false,
        fallsBack: false,
      });
    }
  });
});

describe('parseStreamUrl', () => {
  it('reads host, port, path and the Host header as the CRI hands URLs out', () => {
    expect(parseStreamUrl('http://127.0.0.1:10010/exec/AbC?x=1', OFFERED)).toEqual({
      secure: false,
      host: '127.0.0.1',
      port: 10010,
      path: '/exec/AbC?x=1',
      hostHeader: '127.0.0.1:10010',
    });
    // IPv6: no brackets to dial, brackets in the Host header.
    expect(parseStreamUrl('https://[::1]:8443/portforward/t', OFFERED)).toMatchObject({
      secure: true,
      host: '::1',
      port: 8443,
      hostHeader: '[::1]:8443',
    });
    expect(parseStreamUrl('http://node/attach/t', OFFERED).port).toBe(80);
    expect(parseStreamUrl('https://node/attach/t', OFFERED).port).toBe(443);
  });

  it('refuses what no stream server hands out, before dialling, and no fallback follows', () => {
    const invalid = (url: string, offered: readonly string[] = OFFERED): UpgradeError => {
      try {
        parseStreamUrl(url, offered);
      } catch (error) {
        if (isUpgradeFailure(error)) return error;
        throw error;
      }
      throw new Error(`${url} was accepted`);
    };
    for (const error of [
      invalid('not a url'),
      invalid('ftp://127.0.0.1/exec/x'),
      invalid('http://127.0.0.1/exec/x', []),
      invalid('http://127.0.0.1/exec/x', ['v4.channel.k8s.io, v3.channel.k8s.io']),
      invalid('http://127.0.0.1/exec/x', ['v4 channel']),
    ]) {
      expect(shape(error)).toMatchObject({
        code: 'invalid-argument',
        status: undefined,
        fallsBack: false,
      });
    }
  });
});
