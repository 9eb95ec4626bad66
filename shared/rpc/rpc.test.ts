import { describe, expect, it, vi } from 'vitest';
import type { CallContext, EventSink, EventSource, ServiceHandlers, Services } from '../contract';
import { fakeEvents, fakeServices } from '../contract/testing';
import { AppError } from '../errors';
import { nodesReset, type NodeStatus, type ResourceDelta } from '../model';
import { createClient } from './client';
import { createMessagePortPair, type MessagePortLike } from './port';
import { serve } from './server';

const status: NodeStatus = {
  nodeId: 'n1',
  name: 'lab',
  kind: 'local',
  endpoint: 'unix:///x.sock',
  origin: 'saved',
  state: 'disconnected',
};

const noEvents = fakeEvents();

function setup(services: ServiceHandlers, events: EventSource = noEvents, clone?: 'json') {
  const [clientPort, serverPort] = createMessagePortPair(clone ? { clone } : {});
  const server = serve(serverPort, services, events);
  const client = createClient(clientPort);
  return { client, server, clientPort, serverPort };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('rpc calls', () => {
  it('calls a service and returns its value', async () => {
    const list = vi.fn(() => Promise.resolve([status]));
    const { client } = setup(fakeServices({ nodes: { list } }));
    await expect(client.services.nodes.list()).resolves.toEqual([status]);
    expect(list).toHaveBeenCalledOnce();
  });

  it('passes arguments, optional ones as undefined, then the call context', async () => {
    const pullImage = vi.fn(
      (_node: string, _image: string, _auth?: unknown, _context?: CallContext) =>
        Promise.resolve('sha256:1'),
    );
    const { client } = setup(fakeServices({ lifecycle: { pullImage } }), noEvents, 'json');
    await expect(client.services.lifecycle.pullImage('n1', 'busybox')).resolves.toBe('sha256:1');
    const args = pullImage.mock.calls[0];
    expect(args?.slice(0, 3)).toEqual(['n1', 'busybox', undefined]);
    expect((args?.[3] as CallContext).signal.aborted).toBe(false);
  });

  it('rejects with the AppError the service threw, code, message and hint intact', async () => {
    const connect = () =>
      Promise.reject(
        new AppError({ code: 'permission-denied', message: 'No access.', hint: 'Use sudo.' }),
      );
    const { client } = setup(fakeServices({ nodes: { connect } }));
    const error = await client.services.nodes.connect('n1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'permission-denied',
      message: 'No access.',
      hint: 'Use sudo.',
    });
  });

  it('turns a plain Error or a synchronous throw into an internal AppError', async () => {
    const list = (): Promise<readonly NodeStatus[]> => {
      throw new TypeError('boom');
    };
    const { client } = setup(fakeServices({ nodes: { list } }));
    await expect(client.services.nodes.list()).rejects.toMatchObject({
      code: 'internal',
      message: 'boom',
    });
  });

  it('refuses unknown services, unknown methods and too many arguments', async () => {
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, fakeServices({}), noEvents);
    const replies: unknown[] = [];
    clientPort.onMessage((m) => replies.push(m));
    clientPort.postMessage({ type: 'call', id: 1, service: 'fs', method: 'read', args: [] });
    clientPort.postMessage({ type: 'call', id: 2, service: 'nodes', method: 'toString', args: [] });
    clientPort.postMessage({ type: 'call', id: 3, service: 'nodes', method: 'list', args: [1] });
    clientPort.postMessage({ type: 'listen', id: 4, event: 'secrets', argument: null });
    clientPort.postMessage({ type: 'nonsense' });
    await tick();
    expect(replies).toEqual([
      {
        type: 'error',
        id: 1,
        error: expect.objectContaining({ code: 'invalid-argument' }) as unknown,
      },
      {
        type: 'error',
        id: 2,
        error: expect.objectContaining({ code: 'invalid-argument' }) as unknown,
      },
      {
        type: 'error',
        id: 3,
        error: expect.objectContaining({ code: 'invalid-argument' }) as unknown,
      },
      {
        type: 'listen-error',
        id: 4,
        error: expect.objectContaining({ code: 'invalid-argument' }) as unknown,
      },
    ]);
  });

  it('cancels: the caller rejects at once and the service sees its signal abort', async () => {
    let seen: CallContext | undefined;
    const pullImage = (_n: string, _i: string, _a?: unknown, context?: CallContext) =>
      new Promise<string>((_resolve, reject) => {
        seen = context;
        context?.signal.addEventListener('abort', () =>
          reject(new AppError({ code: 'cancelled', message: 'stopped' })),
        );
      });
    const { client } = setup(fakeServices({ lifecycle: { pullImage } }));
    const controller = new AbortController();
    const pending = client.withSignal(controller.signal).lifecycle.pullImage('n1', 'big');
    await tick();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await tick();
    expect(seen?.signal.aborted).toBe(true);
  });

  it('rejects pending calls with connection-lost when the port closes, and aborts them', async () => {
    let seen: CallContext | undefined;
    const list = (context?: CallContext) => {
      seen = context;
      return new Promise<readonly NodeStatus[]>(() => undefined);
    };
    const { client, serverPort } = setup(fakeServices({ nodes: { list } }));
    const pending = client.services.nodes.list();
    await tick();
    serverPort.close();
    await expect(pending).rejects.toMatchObject({ code: 'connection-lost' });
    expect(seen?.signal.aborted).toBe(true);
    await expect(client.services.nodes.list()).rejects.toMatchObject({ code: 'connection-lost' });
  });
});

describe('rpc subscriptions', () => {
  function resourceSource() {
    const sinks = new Map<string, EventSink<ResourceDelta>>();
    const disposed: string[] = [];
    const events: EventSource = fakeEvents({
      nodes: (_argument, sink) => {
        sink.next(nodesReset([status]));
        return { dispose() {} };
      },
      resources: ({ nodeId }, sink) => {
        if (nodeId === 'missing')
          throw new AppError({ code: 'not-found', message: 'No such node.' });
        sinks.set(nodeId, sink);
        return { dispose: () => disposed.push(nodeId) };
      },
    });
    return { events, sinks, disposed };
  }

  const delta = (nodeId: string): ResourceDelta => ({
    nodeId,
    reset: true,
    pods: { upserted: [], removed: [] },
    containers: { upserted: [], removed: [] },
    images: { upserted: [], removed: [] },
    updatedAt: 1,
  });

  it('delivers payloads until unsubscribed, then disposes the source', async () => {
    const { events, sinks, disposed } = resourceSource();
    const { client } = setup(fakeServices({}), events);
    const payloads: ResourceDelta[] = [];
    const subscription = client.subscribe('resources', { nodeId: 'a' }, (p) => payloads.push(p));
    await tick();
    sinks.get('a')?.next(delta('a'));
    await tick();
    expect(payloads).toEqual([delta('a')]);
    subscription.dispose();
    await tick();
    expect(disposed).toEqual(['a']);
    sinks.get('a')?.next(delta('a'));
    await tick();
    expect(payloads).toHaveLength(1);
  });

  it('passes an undefined argument over JSON', async () => {
    const { events } = resourceSource();
    const { client } = setup(fakeServices({}), events, 'json');
    const received = await new Promise((resolve) => client.subscribe('nodes', undefined, resolve));
    expect(received).toEqual(nodesReset([status]));
  });

  it('reports a refused subscription and a failed one through onError', async () => {
    const { events, sinks } = resourceSource();
    const { client } = setup(fakeServices({}), events);
    const refused = await new Promise<AppError>((resolve) =>
      client.subscribe('resources', { nodeId: 'missing' }, () => undefined, resolve),
    );
    expect(refused).toMatchObject({ code: 'not-found', message: 'No such node.' });

    const failed = new Promise<AppError>((resolve) =>
      client.subscribe('resources', { nodeId: 'b' }, () => undefined, resolve),
    );
    await tick();
    sinks.get('b')?.error(new AppError({ code: 'unavailable', message: 'Runtime went away.' }));
    await expect(failed).resolves.toMatchObject({ code: 'unavailable' });
  });

  it('disposes every subscription when the port closes', async () => {
    const { events, disposed } = resourceSource();
    const { client, clientPort } = setup(fakeServices({}), events);
    const errors: AppError[] = [];
    client.subscribe(
      'resources',
      { nodeId: 'a' },
      () => undefined,
      (e) => errors.push(e),
    );
    client.subscribe(
      'resources',
      { nodeId: 'b' },
      () => undefined,
      (e) => errors.push(e),
    );
    await tick();
    clientPort.close();
    await tick();
    expect(disposed.sort()).toEqual(['a', 'b']);
    expect(errors.map((e) => e.code)).toEqual(['connection-lost', 'connection-lost']);
  });

  it('client.dispose unsubscribes, cancels and closes without reporting errors', async () => {
    const { events, disposed } = resourceSource();
    const list = () => new Promise<readonly NodeStatus[]>(() => undefined);
    const { client } = setup(fakeServices({ nodes: { list } }), events);
    const onError = vi.fn();
    client.subscribe('resources', { nodeId: 'a' }, () => undefined, onError);
    const pending = client.services.nodes.list();
    await tick();
    client.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await tick();
    expect(disposed).toEqual(['a']);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('a plain Services object serves as well', () => {
  it('type-checks and answers', async () => {
    const services: Services = fakeServices({
      nodes: { list: () => Promise.resolve([status]) },
    });
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, services, noEvents);
    const client = createClient(clientPort satisfies MessagePortLike);
    await expect(client.services.nodes.list()).resolves.toHaveLength(1);
  });
});

describe('limits, whatever carries the messages', () => {
  function rawServer(services: ServiceHandlers, options?: Parameters<typeof serve>[3]) {
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, services, noEvents, options);
    const replies: { id: number; type: string; error?: { code: string; message: string } }[] = [];
    clientPort.onMessage((m) => replies.push(m as (typeof replies)[number]));
    return { clientPort, replies };
  }

  it('refuses calls past the in-flight cap with resource-exhausted, and takes more once they end', async () => {
    const pending: (() => void)[] = [];
    const list = () =>
      new Promise<readonly NodeStatus[]>((resolve) => pending.push(() => resolve([])));
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, fakeServices({ nodes: { list } }), noEvents, {
      limits: { maxInFlightCalls: 3 },
    });
    const capped = createClient(clientPort);
    const running = [
      capped.services.nodes.list(),
      capped.services.nodes.list(),
      capped.services.nodes.list(),
    ];
    await expect(capped.services.nodes.list()).rejects.toMatchObject({
      code: 'resource-exhausted',
      message: 'Too many calls at once: 3 are already running on this connection.',
      hint: 'Wait for answers before sending more requests.',
    });
    for (const resolve of pending.splice(0)) resolve();
    await Promise.all(running);
    const next = capped.services.nodes.list();
    await tick();
    pending.shift()?.();
    await expect(next).resolves.toEqual([]);
    capped.dispose();
  });

  it('refuses subscriptions past the cap; an ended one frees its slot', async () => {
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, fakeServices({}), fakeEvents(), { limits: { maxSubscriptions: 2 } });
    const client = createClient(clientPort);
    const errors: AppError[] = [];
    const listen = () =>
      client.subscribe(
        'nodes',
        undefined,
        () => undefined,
        (e) => errors.push(e),
      );
    const first = listen();
    listen();
    listen();
    await tick();
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['resource-exhausted', 'Too many subscriptions: 2 are already open on this connection.'],
    ]);
    first.dispose();
    await tick();
    listen();
    await tick();
    expect(errors).toHaveLength(1);
    client.dispose();
  });

  it('answers messages over the size, depth or plain-data limits, echoing nothing', async () => {
    const { clientPort, replies } = rawServer(fakeServices({}), {
      limits: { maxMessageBytes: 64 * 1024 },
    });
    let deep: unknown = 1;
    for (let i = 0; i < 40; i += 1) deep = { a: deep };
    const wide = Array.from({ length: 20_000 }, () => 0);
    clientPort.postMessage({
      type: 'call',
      id: 1,
      service: 'nodes',
      method: 'saveProfile',
      args: [deep],
    });
    clientPort.postMessage({
      type: 'call',
      id: 2,
      service: 'nodes',
      method: 'saveProfile',
      args: ['x'.repeat(70_000)],
    });
    clientPort.postMessage({
      type: 'call',
      id: 3,
      service: 'nodes',
      method: 'saveProfile',
      args: [wide],
    });
    clientPort.postMessage({
      type: 'call',
      id: 4,
      service: 'nodes',
      method: 'saveProfile',
      args: [new Map([[1, 2]])],
    });
    clientPort.postMessage({
      type: 'listen',
      id: 5,
      event: 'nodes',
      argument: new Uint8Array(70_000),
    });
    clientPort.postMessage({ type: 'cancel', id: 6, junk: 'y'.repeat(70_000) });
    await tick();
    expect(replies.map((r) => [r.id, r.type, r.error?.code, r.error?.message])).toEqual([
      [1, 'error', 'invalid-argument', 'The message nests deeper than 32 levels.'],
      [
        2,
        'error',
        'resource-exhausted',
        'The message is larger than 0.0625 MiB, the most one message may carry.',
      ],
      [
        3,
        'error',
        'resource-exhausted',
        'The message is larger than 0.0625 MiB, the most one message may carry.',
      ],
      [4, 'error', 'invalid-argument', 'The message holds something other than plain data.'],
      [
        5,
        'listen-error',
        'resource-exhausted',
        'The message is larger than 0.0625 MiB, the most one message may carry.',
      ],
    ]);
  });

  it('refuses an oversized request in the client, before it is sent', async () => {
    const saveProfile = vi.fn(() => Promise.reject(new Error('must not be called')));
    const [clientPort, serverPort] = createMessagePortPair();
    serve(serverPort, fakeServices({ nodes: { saveProfile } }), noEvents);
    const sent: unknown[] = [];
    const counting: MessagePortLike = {
      ...clientPort,
      postMessage: (message) => {
        sent.push(message);
        clientPort.postMessage(message);
      },
    };
    const client = createClient(counting);
    await expect(
      client.services.nodes.saveProfile({
        kind: 'local',
        name: 'x'.repeat(2 * 1024 * 1024),
        endpoint: 'e',
      }),
    ).rejects.toMatchObject({ code: 'resource-exhausted' });
    const refused = await new Promise<AppError>((resolve) =>
      client.subscribe(
        'resources',
        { nodeId: 'y'.repeat(2 * 1024 * 1024) },
        () => undefined,
        resolve,
      ),
    );
    expect(refused.code).toBe('resource-exhausted');
    expect(sent).toEqual([]);
    expect(saveProfile).not.toHaveBeenCalled();
    client.dispose();
  });

  it('rejects a call whose port refuses to send it, keeping nothing pending', async () => {
    const [clientPort] = createMessagePortPair();
    const refusing: MessagePortLike = {
      ...clientPort,
      postMessage: () => {
        throw new AppError({ code: 'resource-exhausted', message: 'Too large for the socket.' });
      },
    };
    const client = createClient(refusing);
    await expect(client.services.nodes.list()).rejects.toMatchObject({
      message: 'Too large for the socket.',
    });
    client.dispose();
  });
});

describe('rpc notifications', () => {
  it('runs one-way methods in order, with no id and no answer', async () => {
    const seen: unknown[][] = [];
    const write = vi.fn((id: string, data: Uint8Array) => void seen.push([id, [...data]]));
    const resize = vi.fn((id: string, cols: number, rows: number) => {
      seen.push([id, cols, rows]);
    });
    const { client, clientPort } = setup(fakeServices({ terminals: { write, resize } }));
    const answers: unknown[] = [];
    clientPort.onMessage((message) => answers.push(message));
    client.notify.terminals.write('t1', Uint8Array.from([0x61]));
    client.notify.terminals.resize('t1', 80, 24);
    client.notify.terminals.write('t1', Uint8Array.from([0x62, 0x63]));
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen).toEqual([
      ['t1', [0x61]],
      ['t1', 80, 24],
      ['t1', [0x62, 0x63]],
    ]);
    await tick();
    expect(answers).toEqual([]);
  });

  it('carries payloads as bytes over the JSON transport too', async () => {
    const write = vi.fn((_id: string, _data: Uint8Array) => undefined);
    const { client } = setup(fakeServices({ terminals: { write } }), noEvents, 'json');
    client.notify.terminals.write('t1', new TextEncoder().encode('é'));
    await vi.waitFor(() => expect(write).toHaveBeenCalledOnce());
    const data = write.mock.calls[0]?.[1];
    expect(data).toBeInstanceOf(Uint8Array);
    expect([...(data ?? [])]).toEqual([0xc3, 0xa9]);
  });

  it('sends nothing back when a notification fails, and tells the server log', async () => {
    const write = () => {
      throw new AppError({ code: 'not-found', message: 'There is no such terminal.' });
    };
    const [clientPort, serverPort] = createMessagePortPair();
    const protocolErrors: AppError[] = [];
    serve(serverPort, fakeServices({ terminals: { write } }), noEvents, {
      onProtocolError: (error) => protocolErrors.push(error),
    });
    const received: unknown[] = [];
    clientPort.onMessage((message) => received.push(message));
    const client = createClient(clientPort);
    client.notify.terminals.write('nope', Uint8Array.from([1]));
    await vi.waitFor(() => expect(protocolErrors).toHaveLength(1));
    expect(protocolErrors[0]?.code).toBe('not-found');
    await tick();
    expect(received).toEqual([]);
  });

  it('refuses a notification sent as a call, and a call sent as a notification', async () => {
    const write = vi.fn();
    const list = vi.fn(() => Promise.resolve([]));
    const [clientPort, serverPort] = createMessagePortPair();
    const protocolErrors: AppError[] = [];
    serve(serverPort, fakeServices({ terminals: { write }, nodes: { list } }), noEvents, {
      onProtocolError: (error) => protocolErrors.push(error),
    });
    const answers: unknown[] = [];
    clientPort.onMessage((message) => answers.push(message));
    clientPort.postMessage({
      type: 'call',
      id: 1,
      service: 'terminals',
      method: 'write',
      args: [],
    });
    clientPort.postMessage({ type: 'notify', service: 'nodes', method: 'list', args: [] });
    clientPort.postMessage({
      type: 'notify',
      service: 'terminals',
      method: 'ack',
      args: [1, 2, 3],
    });
    await vi.waitFor(() => expect(protocolErrors).toHaveLength(3));
    expect(answers).toMatchObject([{ type: 'error', id: 1, error: { code: 'invalid-argument' } }]);
    expect(write).not.toHaveBeenCalled();
    expect(list).not.toHaveBeenCalled();
  });

  it('refuses to send a notification over the limits, and drops it after the close', () => {
    const [clientPort] = createMessagePortPair();
    const client = createClient(clientPort, { limits: { maxStringLength: 4 } });
    expect(() => client.notify.terminals.write('t1', new Uint8Array(5))).toThrow(AppError);
    client.dispose();
    expect(() => client.notify.terminals.write('t1', new Uint8Array(5))).not.toThrow();
  });

  it('keeps the notifications out of the call proxy', () => {
    const [clientPort] = createMessagePortPair();
    const client = createClient(clientPort);
    expect(Object.keys(client.services.terminals)).not.toContain('write');
    expect(Object.keys(client.notify.terminals).sort()).toEqual(['ack', 'resize', 'write']);
  });
});
