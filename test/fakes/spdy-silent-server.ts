/**
 * A fake stream server that completes the SPDY/3.1 upgrade (101 with the chosen
 * X-Stream-Protocol-Version) and then never answers anything: every SYN_STREAM goes
 * unanswered, as from a wedged or foreign server. Clients must time out, not hang.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export class SilentSpdyServer implements AsyncDisposable {
  /** Bytes received after the upgrade (the client's SYN_STREAM frames). */
  received = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('upgrade', (request, socket: Socket) => {
      const offered = request.headersDistinct['x-stream-protocol-version'] ?? [];
      const protocols = offered.flatMap((line) => line.split(',').map((p) => p.trim()));
      const chosen = protocols.find((p) => p === 'v4.channel.k8s.io') ?? protocols[0] ?? '';
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
          `X-Stream-Protocol-Version: ${chosen}\r\n\r\n`,
      );
      socket.on('data', (chunk: Buffer) => (this.received += chunk.length));
      socket.on('error', () => undefined);
    });
  }

  static async start(): Promise<SilentSpdyServer> {
    const server = createServer((_req, res) => res.writeHead(400).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new SilentSpdyServer(server);
  }

  url(kind: 'exec' | 'attach' = 'exec'): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/${kind}/silent`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
