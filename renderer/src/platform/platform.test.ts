import { describe, expect, it } from 'vitest';
import type { EventSink, EventSource } from '../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../shared/contract/testing';
import { AppError } from '../../../shared/errors';
import { nodesReset, type NodesDelta, type NodeStatus } from '../../../shared/model';
import { createMessagePortPair, serve, type MessagePortLike } from '../../../shared/rpc';
import { createPortholeClient, type ConnectionState } from './client';
import { createInMemoryPorthole } from './index';

const node: NodeStatus = {
  nodeId: 'n1',
  name: 'lab',
  kind: 'local',
  endpoint: 'unix:///x.sock',
  origin: 'discovered',
  state: 'disconnected',
};

const services = fakeServices({
  nodes: {
    list: () => Promise.resolve([node]),
    connect: () =>
      Promise.reject(new AppError({ code: 'unavailable', message: 'Down.', hint: 'Start it.' })),
  },
  lifecycle: { validateSpec: () => Promise.resolve({ errors: [] }) },
});

function nodesEvents(): { events: EventSource; sinks: EventSink<NodesDelta>[] } {
  const sinks: EventSink<NodesDelta>[] = [];
  return {
    sinks,
    events: fakeEvents({
      nodes: (_argument, sink) => {
        sinks.push(sink);
        sink.next(nodesReset([node]));
        return { dispose: () => sinks.splice(sinks.indexOf(sink), 1) };
      },
    }),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('createInMemoryPorthole', () => {
  it('carries calls, AppErrors and subscriptions through the real protocol', async () => {
    const { events } = nodesEvents();
    const client = createInMemoryPorthole(services, events, { clone: 'json' });
    expect(client.mode).toBe('browser');
    expect(client.connectionState).toBe('connected');
    await expect(client.services.nodes.list()).resolves.toEqual([node]);
    const error = await client.services.nodes.connect('n1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unavailable', hint: 'Start it.' });
    const received = await new Promise((resolve) => client.subscribe('nodes', undefined, resolve));
    expect(received).toEqual(nodesReset([node]));
    client.dispose();
    expect(client.connectionState).toBe('closed');
  });
});

describe('reconnecting client', () => {
  function transport() {
    const { events, sinks } = nodesEvents();
    const servers: MessagePortLike[] = [];
    const open = (): MessagePortLike => {
      const [clientPort, serverPort] = createMessagePortPair();
      serve(serverPort, services, events);
      servers.push(serverPort);
      return clientPort;
    };
    return { open, servers, sinks };
  }

  it('reconnects after the port drops and renews its subscriptions', async () => {
    const { open, servers, sinks } = transport();
    let reopenFails = 1;
    const client = createPortholeClient(open(), 'browser', {
      backoffMs: [50],
      reopen: () =>
        reopenFails-- > 0 ? Promise.reject(new Error('host down')) : Promise.resolve(open()),
    });
    const states: ConnectionState[] = [];
    client.onDidChangeConnection((state) => states.push(state));
    const payloads: NodesDelta[] = [];
    const errors: AppError[] = [];
    client.subscribe(
      'nodes',
      undefined,
      (p) => payloads.push(p),
      (e) => errors.push(e),
    );
    await settle();
    expect(payloads).toHaveLength(1);

    servers[0]?.close();
    await settle();
    expect(states[0]).toBe('reconnecting');
    await expect(client.services.nodes.list()).rejects.toMatchObject({ code: 'connection-lost' });

    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(states).toEqual(['reconnecting', 'connected']);
    // The subscription was renewed on the new port: its first payload arrived again.
    expect(payloads).toHaveLength(2);
    expect(sinks).toHaveLength(1);
    expect(errors).toEqual([]);
    await expect(client.services.nodes.list()).resolves.toEqual([node]);
    client.dispose();
    expect(states.at(-1)).toBe('closed');
  });

  it('without a way to reopen (Electron), a dropped port closes the client for good', async () => {
    const { open, servers } = transport();
    const client = createPortholeClient(open(), 'electron');
    const errors: AppError[] = [];
    client.subscribe(
      'nodes',
      undefined,
      () => undefined,
      (e) => errors.push(e),
    );
    await settle();
    servers[0]?.close();
    await settle();
    expect(client.connectionState).toBe('closed');
    expect(errors.map((e) => e.code)).toEqual(['connection-lost']);
  });

  it('cancels calls through withSignal', async () => {
    const pending = new Promise<never>(() => undefined);
    const slow = fakeServices({ lifecycle: { pullImage: () => pending } });
    const client = createInMemoryPorthole(slow, nodesEvents().events);
    const controller = new AbortController();
    const pull = client.withSignal(controller.signal).lifecycle.pullImage('n1', 'busybox');
    controller.abort();
    await expect(pull).rejects.toMatchObject({ code: 'cancelled' });
    client.dispose();
  });
});
