import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { hasOpenssl, selfSignedCertificate } from '../../../../../test/fakes/tls';
import { isUpgradeFailure } from '../upgrade';
import { openWebSocketConnection, type WebSocketRemoteConnection } from './websocket';

/**
 * A fake runtime stream server for port-forward over WebSocket. Like the real one, it writes
 * each channel's port prefix as soon as the socket is open (here in the same tick as the 101,
 * so the frames usually share its TCP segment), then behaves as the token says.
 */
class FakePortForwardServer {
  readonly received: Buffer[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(
    private readonly server: Server,
    private readonly secure = false,
  ) {
    server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
      const token = request.url?.split('/').pop() ?? '';
      if (token === 'forbidden') {
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 11\r\n\r\nno protocol');
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.serve(ws, token));
    });
  }

  static async start(tls?: { key: string; cert: string }): Promise<FakePortForwardServer> {
    const server = tls === undefined ? createServer() : createTlsServer(tls);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakePortForwardServer(server, tls !== undefined);
  }

  url(token: string): string {
    const scheme = this.secure ? 'https' : 'http';
    return `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}/portforward/${token}`;
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.server.close();
  }

  private serve(ws: WebSocket, token: string): void {
    const prefix = (channel: number, port: number): Buffer =>
      Buffer.from([channel, port & 0xff, port >> 8]);
    const port = token === 'wrong-prefix' ? 9999 : 8080;
    ws.send(prefix(0, port));
    ws.send(prefix(1, port));
    if (token === 'hello') ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('hello')]));
    if (token === 'refused') {
      ws.send(
        Buffer.concat([Buffer.from([1]), Buffer.from('failed to connect to localhost:8080')]),
      );
      ws.close(1000);
    }
    ws.on('message', (data: Buffer) => {
      this.received.push(data);
      if (token === 'echo') ws.send(data);
    });
  }
}

function read(connection: WebSocketRemoteConnection, bytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    connection.readable.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.length >= bytes) resolve(text);
    });
    connection.readable.once('error', reject);
  });
}

describe('openWebSocketConnection', () => {
  let server: FakePortForwardServer;
  beforeAll(async () => {
    server = await FakePortForwardServer.start();
  });
  afterAll(() => server.close());

  it('strips the port prefix, even when it came with the 101, and keeps what follows', async () => {
    const connection = await openWebSocketConnection({
      url: server.url('hello'),
      remotePort: 8080,
    });
    expect(connection.protocol).toBe('v4.channel.k8s.io');
    expect(await read(connection, 5)).toBe('hello');
    connection.close();
  });

  it('writes to the data channel', async () => {
    const connection = await openWebSocketConnection({ url: server.url('echo'), remotePort: 8080 });
    connection.writable.write('ping');
    expect(await read(connection, 4)).toBe('ping');
    expect(server.received.at(-1)).toEqual(Buffer.from([0, ...Buffer.from('ping')]));
    connection.close();
  });

  it("resolves the runtime's error text and ends the data cleanly", async () => {
    const connection = await openWebSocketConnection({
      url: server.url('refused'),
      remotePort: 8080,
    });
    const ended = new Promise((resolve) => connection.readable.once('end', resolve));
    connection.readable.resume();
    expect(await connection.errorText).toBe('failed to connect to localhost:8080');
    await ended;
  });

  it('fails a connection whose prefix names another port', async () => {
    const connection = await openWebSocketConnection({
      url: server.url('wrong-prefix'),
      remotePort: 8080,
    });
    await expect(
      new Promise((_resolve, reject) => connection.readable.once('error', reject).resume()),
    ).rejects.toMatchObject({ code: 'protocol-error' });
  });

  it('maps a refused upgrade to an UpgradeError with the status', async () => {
    const error = await openWebSocketConnection({
      url: server.url('forbidden'),
      remotePort: 8080,
    }).catch((e: unknown) => e);
    expect(isUpgradeFailure(error)).toBe(true);
    expect(error).toMatchObject({ status: 403, body: 'no protocol' });
  });
});

describe.runIf(hasOpenssl())('openWebSocketConnection over TLS', () => {
  let server: FakePortForwardServer;
  beforeAll(async () => {
    server = await FakePortForwardServer.start(selfSignedCertificate());
  });
  afterAll(() => server.close());

  it("connects to an https stream URL with the node's certificate accepted", async () => {
    const connection = await openWebSocketConnection({
      url: server.url('hello'),
      remotePort: 8080,
      tls: { rejectUnauthorized: false },
    });
    expect(await read(connection, 5)).toBe('hello');
    connection.close();
  });

  it('refuses an untrusted certificate, saying what to do', async () => {
    await expect(
      openWebSocketConnection({ url: server.url('hello'), remotePort: 8080 }),
    ).rejects.toMatchObject({
      // The same verdict exec and attach give: a certificate problem, not an outage.
      code: 'permission-denied',
      message: expect.stringContaining('not trusted') as string,
      hint: expect.stringContaining('CA') as string,
    });
  });
});
