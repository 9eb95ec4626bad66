/**
 * Forwards other machines can reach: created over the RPC only with the confirmation the
 * dialog asks the user for, and never started unattended — a saved auto-start forward on
 * 0.0.0.0 waits for the user to start it when its node connects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForwardEntry } from '../../../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../../../shared/rpc';
import { createCoreServices, type CoreServices } from '../../services';
import { discoveredNodeId } from '../nodes';
import { discoverOnly, FakeNodeClient } from '../nodes/testing/fake-node-client';
import { ForwardStore } from './store';

const endpoint = 'unix:///run/fake.sock';
const nodeId = discoveredNodeId(endpoint);
const target = { kind: 'pod', namespace: 'demo', name: 'web' } as const;
const ports = [{ localPort: 0, remotePort: 80 }];

/** A call that only ends when the test disposes its client (cancelled): not awaited. */
function waitForever(call: Promise<unknown>): void {
  call.catch(() => undefined);
}

describe('forwards beyond loopback', () => {
  let dir: string;
  let core: CoreServices | undefined;
  let rpc: RpcClient | undefined;
  let forwards: readonly ForwardEntry[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-exposed-'));
    forwards = [];
  });

  afterEach(async () => {
    rpc?.dispose();
    core?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  function connectRpc(): RpcClient {
    core = createCoreServices({
      configDir: dir,
      discover: discoverOnly(endpoint),
      createClient: () => new FakeNodeClient(endpoint),
    });
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
    serve(serverPort, core.services, core.events);
    rpc = createClient(clientPort);
    rpc.subscribe('forwards', undefined, (list) => (forwards = list));
    return rpc;
  }

  it('are refused over the RPC without the confirmation, keeping nothing', async () => {
    const client = connectRpc();
    await client.services.nodes.connect(nodeId);
    for (const addresses of [['0.0.0.0'], ['127.0.0.1', '192.0.2.7'], ['::']]) {
      await expect(
        client.services.forwards.create(nodeId, { target, ports, addresses }),
      ).rejects.toMatchObject({
        code: 'failed-precondition',
        message: expect.stringMatching(
          /which other machines can reach; it needs the user's confirmation/,
        ) as string,
      });
    }
    expect(await client.services.forwards.list()).toEqual([]);
    // The fake node has no pods, so these never become active: they listen and wait.
    // Loopback needs no confirmation; confirmed, 0.0.0.0 is listened on as asked.
    waitForever(
      client.services.forwards.create(nodeId, { target, ports, addresses: ['127.0.0.1'] }),
    );
    waitForever(
      client.services.forwards.create(
        nodeId,
        { target, ports, addresses: ['0.0.0.0'] },
        { exposeBeyondLoopback: true },
      ),
    );
    await expect
      .poll(() => forwards.map((forward) => forward.live?.ports[0]?.addresses[0]).sort())
      .toEqual(['0.0.0.0', '127.0.0.1']);
  });

  it('are not auto-started: a saved one on 0.0.0.0 waits for the user to start it', async () => {
    const store = new ForwardStore(dir);
    await store.load();
    await store.save({
      id: 'forward-exposed',
      nodeId,
      spec: { target, ports, addresses: ['0.0.0.0'] },
      autoStart: true,
    });
    await store.save({ id: 'forward-local', nodeId, spec: { target, ports }, autoStart: true });
    const client = connectRpc();
    await client.services.nodes.connect(nodeId);
    await expect
      .poll(() => forwards.find((forward) => forward.id === 'forward-local')?.live?.ports.length)
      .toBe(1);
    const waiting = forwards.find((forward) => forward.id === 'forward-exposed');
    expect(waiting?.live).toBeUndefined();
    expect(waiting?.lastError).toEqual({
      code: 'failed-precondition',
      message: 'Not started by itself: it listens on 0.0.0.0, which other machines can reach.',
      hint: 'Start it to confirm, or re-create it to listen on this machine only.',
    });
    // The user's start is the confirmation (it listens, then waits for the pod).
    waitForever(client.services.forwards.start('forward-exposed'));
    await expect
      .poll(() => forwards.find((forward) => forward.id === 'forward-exposed')?.live?.ports[0])
      .toMatchObject({ addresses: ['0.0.0.0'] });
    expect(forwards.find((forward) => forward.id === 'forward-exposed')?.lastError).toBeUndefined();
  });
});
