import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { IpcMain, IpcMainEvent, MessagePortMain } from 'electron';
import { createClient } from '../../shared/rpc';
import { registerIpc, helloChannel, portChannel } from './ipc';
import { fromMessagePortMain } from './message-port';
import { fakeEvents, fakeServices } from '../../shared/contract/testing';

vi.mock('electron', () => ({}));

/** Two connected MessagePortMain look-alikes: what one posts, the other emits. */
class FakePortMain extends EventEmitter {
  other: FakePortMain | undefined;
  closed = false;
  start(): void {}
  postMessage(message: unknown): void {
    const other = this.other;
    if (this.closed || other === undefined) return;
    const data = structuredClone(message);
    setImmediate(() => other.emit('message', { data, ports: [] }));
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
    if (this.other !== undefined && !this.other.closed) this.other.close();
  }
}

class FakeChannel {
  readonly port1 = new FakePortMain();
  readonly port2 = new FakePortMain();
  constructor() {
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  }
}

const services = fakeServices({
  nodes: { list: () => Promise.resolve([]) },
  lifecycle: { validateSpec: () => Promise.resolve({ errors: [] }) },
});
const events = fakeEvents();

let nextRoutingId = 1;

function frame(url: string, destroyed = false) {
  return {
    url,
    processId: 7,
    routingId: nextRoutingId++,
    isDestroyed: () => destroyed,
    postMessage: vi.fn(),
  };
}

function portOf(target: ReturnType<typeof frame>, call = 0): FakePortMain {
  const [, , ports] = target.postMessage.mock.calls[call] as [string, unknown, FakePortMain[]];
  return ports[0]!;
}

function setup() {
  const ipcMain = new EventEmitter();
  const refused: string[] = [];
  const protocolErrors: string[] = [];
  const registration = registerIpc({
    ipcMain: ipcMain as unknown as IpcMain,
    MessageChannelMain: FakeChannel,
    services,
    events,
    onRefused: (url) => refused.push(url),
    onProtocolError: (error) => protocolErrors.push(error.message),
  });
  const hello = (senderFrame: ReturnType<typeof frame> | null, mainFrame = senderFrame) => {
    const event = { senderFrame, sender: { mainFrame } } as unknown as IpcMainEvent;
    ipcMain.emit(helloChannel, event);
  };
  return { ipcMain, refused, protocolErrors, registration, hello };
}

describe('the IPC pipe', () => {
  it("hands the app's own top frame a MessagePort that carries the contract", async () => {
    const { hello } = setup();
    const app = frame('porthole://app/index.html');
    hello(app);
    expect(app.postMessage).toHaveBeenCalledOnce();
    const [channel, message, ports] = app.postMessage.mock.calls[0] as [
      string,
      unknown,
      FakePortMain[],
    ];
    expect(channel).toBe(portChannel);
    expect(message).toBeNull();
    const port = ports[0] as unknown as MessagePortMain;
    const client = createClient(fromMessagePortMain(port));
    await expect(client.services.lifecycle.validateSpec('')).resolves.toEqual({ errors: [] });
    await expect(client.services.nodes.connect('x')).rejects.toMatchObject({
      code: 'unimplemented',
    });
    client.dispose();
  });

  it('tells onProtocolError what the RPC refused on a served port', async () => {
    const { hello, protocolErrors } = setup();
    const app = frame('porthole://app/index.html');
    hello(app);
    const port = portOf(app);
    port.start();
    port.postMessage({ type: 'call', id: 1, service: 'nodes', method: 'format', args: [] });
    await vi.waitFor(() => expect(protocolErrors).toEqual(['Unknown method nodes.format.']));
    port.close();
  });

  it('refuses other pages, sub-frames, destroyed and missing frames', () => {
    const { hello, refused } = setup();
    const evil = frame('https://evil.example/');
    hello(evil);
    const sub = frame('porthole://app/index.html');
    hello(sub, frame('porthole://app/index.html'));
    const gone = frame('porthole://app/index.html', true);
    hello(gone);
    hello(null);
    for (const f of [evil, sub, gone]) expect(f.postMessage).not.toHaveBeenCalled();
    expect(refused).toEqual([
      'https://evil.example/',
      'porthole://app/index.html',
      'porthole://app/index.html',
      '(no frame)',
    ]);
  });

  it('serves one port per frame: a second hello closes the first port and its subscriptions', async () => {
    let live = 0;
    const ipcMain = new EventEmitter();
    registerIpc({
      ipcMain: ipcMain as unknown as IpcMain,
      MessageChannelMain: FakeChannel,
      services,
      events: fakeEvents({
        nodes: () => {
          live += 1;
          return { dispose: () => (live -= 1) };
        },
      }),
    });
    const app = frame('porthole://app/index.html');
    const hello = () =>
      ipcMain.emit(helloChannel, { senderFrame: app, sender: { mainFrame: app } });
    hello();
    const first = createClient(fromMessagePortMain(portOf(app)));
    first.subscribe('nodes', undefined, () => undefined);
    await expect.poll(() => live).toBe(1);
    // A page saying hello a thousand times still holds one served port.
    for (let i = 0; i < 1000; i += 1) hello();
    expect(app.postMessage).toHaveBeenCalledTimes(1001);
    expect(first.isClosed).toBe(true);
    expect(live).toBe(0);
    const open = app.postMessage.mock.calls.filter((call) => {
      const [, , ports] = call as [string, unknown, FakePortMain[]];
      return !ports[0]!.closed;
    });
    expect(open).toHaveLength(1);
    const last = createClient(fromMessagePortMain(portOf(app, 1000)));
    await expect(last.services.nodes.list()).resolves.toEqual([]);
    // Another frame (another window) has a port of its own.
    const other = frame('porthole://app/index.html');
    ipcMain.emit(helloChannel, { senderFrame: other, sender: { mainFrame: other } });
    await expect(last.services.nodes.list()).resolves.toEqual([]);
    last.dispose();
  });

  it('stops listening when disposed', () => {
    const { ipcMain, registration } = setup();
    expect(ipcMain.listenerCount(helloChannel)).toBe(1);
    registration.dispose();
    expect(ipcMain.listenerCount(helloChannel)).toBe(0);
  });
});
