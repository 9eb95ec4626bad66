import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { listenAll, listenLocal, type LocalListener } from './listeners';

const opened: LocalListener[] = [];
const servers: Server[] = [];

afterEach(() => {
  for (const listener of opened.splice(0)) listener.dispose();
  for (const server of servers.splice(0)) server.close();
});

function occupy(host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => {
      servers.push(server);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function reach(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function hasIpv6(): Promise<boolean> {
  try {
    await occupy('::1');
    return true;
  } catch {
    return false;
  }
}

describe('listenLocal', () => {
  it('listens on 127.0.0.1 and ::1 on the same free port by default', async () => {
    const ipv6 = await hasIpv6();
    const accepted: Socket[] = [];
    const listener = await listenLocal({ port: 0 }, (socket) => accepted.push(socket));
    opened.push(listener);
    expect(listener.port).toBeGreaterThan(0);
    expect(listener.addresses).toEqual(ipv6 ? ['127.0.0.1', '::1'] : ['127.0.0.1']);
    expect(await reach('127.0.0.1', listener.port)).toBe(true);
    if (ipv6) expect(await reach('::1', listener.port)).toBe(true);
    await expect.poll(() => accepted.length).toBe(ipv6 ? 2 : 1);
  });

  it('listens only where asked when addresses are given', async () => {
    const listener = await listenLocal({ port: 0, addresses: ['127.0.0.1'] }, () => undefined);
    opened.push(listener);
    expect(listener.addresses).toEqual(['127.0.0.1']);
    if (await hasIpv6()) expect(await reach('::1', listener.port)).toBe(false);
  });

  it('names the address and port when the port is in use', async () => {
    const port = await occupy('127.0.0.1');
    const error = await listenLocal({ port }, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'already-exists',
      message: `Local port ${port} is already in use on 127.0.0.1.`,
    });
  });

  it('refuses an address this machine does not have', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never assigned to a host.
    await expect(
      listenLocal({ port: 0, addresses: ['192.0.2.1'] }, () => undefined),
    ).rejects.toMatchObject({
      code: 'invalid-argument',
      message: '192.0.2.1 is not an address of this machine.',
    });
  });

  it('rejects ports outside 0–65535', async () => {
    await expect(listenLocal({ port: 70000 }, () => undefined)).rejects.toMatchObject({
      code: 'invalid-argument',
    });
  });

  it('closes its accepted sockets on dispose', async () => {
    const accepted: Socket[] = [];
    const listener = await listenLocal({ port: 0, addresses: ['127.0.0.1'] }, (socket) =>
      accepted.push(socket),
    );
    const client = connect({ host: '127.0.0.1', port: listener.port });
    client.on('error', () => undefined);
    await expect.poll(() => accepted.length).toBe(1);
    const closed = new Promise((resolve) => client.once('close', resolve));
    listener.dispose();
    await closed;
    expect(accepted[0]?.destroyed).toBe(true);
    expect(await reach('127.0.0.1', listener.port)).toBe(false);
  });
});

describe('listenAll', () => {
  it('is all or nothing', async () => {
    const busy = await occupy('127.0.0.1');
    const free = await occupy('127.0.0.1');
    servers.pop()?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(
      listenAll([{ port: free }, { port: busy }], () => undefined),
    ).rejects.toMatchObject({ code: 'already-exists' });
    // The first one was listening, and was closed again.
    await occupy('127.0.0.1', free);
  });
});
