import { connect, createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Bridge } from './bridge';
import type { RemoteConnection } from './types';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A connected pair: `client` as a local program, `local` as the forward accepted it. */
async function socketPair(): Promise<{ client: Socket; local: Socket }> {
  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const port = (server.address() as { port: number }).port;
  const client = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  client.on('error', () => undefined);
  return { client, local: await accepted };
}

function fakeRemote(canHalfClose = true) {
  const toPod = new PassThrough();
  const fromPod = new PassThrough();
  let settleText: (text: string) => void = () => undefined;
  const errorText = new Promise<string>((resolve) => (settleText = resolve));
  let closed = false;
  const remote: RemoteConnection = {
    remotePort: 8080,
    readable: fromPod,
    writable: toPod,
    canHalfClose,
    errorText,
    close() {
      closed = true;
      settleText('');
      fromPod.destroy();
      toPod.destroy();
    },
  };
  return { remote, toPod, fromPod, settleText, isClosed: () => closed };
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.once('end', () => resolve(text));
  });
}

describe('Bridge', () => {
  it('carries bytes both ways, counts them, and passes EOF each way', async () => {
    const { client, local } = await socketPair();
    const fake = fakeRemote();
    const counts = { in: 0, out: 0 };
    const bridge = new Bridge(local, fake.remote, {
      onBytesIn: (n) => (counts.in += n),
      onBytesOut: (n) => (counts.out += n),
    });
    const atPod = readAll(fake.toPod);
    const atClient = readAll(client);
    client.end('request');
    // The client's EOF reached the pod: the pod answers and ends its side.
    expect(await atPod).toBe('request');
    fake.fromPod.end('response');
    fake.settleText('');
    expect(await atClient).toBe('response');
    expect(await bridge.done).toEqual({});
    expect(counts).toEqual({ in: 8, out: 7 });
    expect(fake.isClosed()).toBe(true);
  });

  it("resets the client and reports the runtime's text when the pod port refused", async () => {
    const { client, local } = await socketPair();
    const fake = fakeRemote();
    const bridge = new Bridge(local, fake.remote);
    const clientError = new Promise<NodeJS.ErrnoException>((resolve) =>
      client.once('error', resolve),
    );
    fake.settleText('failed to connect to localhost:8080 inside namespace "x": connection refused');
    fake.fromPod.end();
    const end = await bridge.done;
    expect(end.error).toMatchObject({
      code: 'unavailable',
      detail: expect.stringContaining('failed to connect to localhost:8080') as string,
    });
    expect((await clientError).code).toBe('ECONNRESET');
  });

  it('prefers the error text over the broken stream it races', async () => {
    const { local } = await socketPair();
    const fake = fakeRemote();
    const bridge = new Bridge(local, fake.remote);
    fake.fromPod.destroy(new Error('socket closed'));
    setTimeout(
      () => fake.settleText('failed to connect to localhost:8080: connection refused'),
      20,
    );
    expect((await bridge.done).error?.detail).toContain('failed to connect');
  });

  it('stops reading the pod while the client does not read', async () => {
    const { client, local } = await socketPair();
    const fake = fakeRemote();
    const bridge = new Bridge(local, fake.remote);
    client.pause();
    // A producer that honours backpressure, as the SPDY session and ws do.
    const chunk = Buffer.alloc(64 * 1024);
    let written = 0;
    while (written < 256 * 1024 * 1024 && fake.fromPod.write(chunk)) written += chunk.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 2000 && fake.fromPod.write(chunk); i++) written += chunk.length;
    // Kernel buffers on loopback take a few MiB; everything beyond is held back at the source.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(fake.fromPod.isPaused() || fake.fromPod.readableFlowing === false).toBe(true);
    bridge.dispose();
  });

  it('closes a transport without half-close a moment after the client EOF', async () => {
    const { client, local } = await socketPair();
    const fake = fakeRemote(false);
    const bridge = new Bridge(local, fake.remote, {}, { halfCloseGraceMs: 50 });
    const atClient = readAll(client);
    fake.fromPod.write('early ');
    client.end('bye');
    // The pod may still answer during the grace period…
    setTimeout(() => fake.fromPod.write('late'), 10);
    expect(await atClient).toBe('early late');
    // …then the connection is closed as a whole.
    expect(await bridge.done).toEqual({});
    expect(fake.isClosed()).toBe(true);
  });

  it('dispose ends the connection without an error', async () => {
    const { client, local } = await socketPair();
    const fake = fakeRemote();
    const bridge = new Bridge(local, fake.remote);
    const ended = new Promise((resolve) => client.once('end', resolve).resume());
    bridge.dispose();
    expect(await bridge.done).toEqual({});
    await ended;
    expect(fake.isClosed()).toBe(true);
  });
});
