import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PendingPrompt } from '../../../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../../../shared/rpc';
import { createCoreServices, type CoreServices } from '../../services';
import { FakeNodeClient } from './testing/fake-node-client';
import { FakeSshSession, fakeHostKey, fakeLogin } from './testing/fake-ssh-session';

describe('prompts over the RPC', () => {
  let dir: string;
  let core: CoreServices;
  let client: RpcClient;
  let prompts: (readonly PendingPrompt[])[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-prompts-'));
    core = createCoreServices({
      configDir: dir,
      discover: () => Promise.resolve({ endpoints: [], warnings: [], sources: [] }),
      createClient: ({ endpoint }) => new FakeNodeClient(endpoint),
      openSsh: async (profile, options) => {
        await fakeLogin(profile.name, options, {
          hostKey: fakeHostKey,
          passphrase: 'open sesame',
        });
        return new FakeSshSession('unix:///tmp/fake-ssh/cri.sock');
      },
    });
    // JSON copies, as the WebSocket of browser mode does.
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
    serve(serverPort, core.services, core.events);
    client = createClient(clientPort);
    prompts = [];
    client.subscribe('prompts', undefined, (list) => prompts.push(list));
  });

  afterEach(async () => {
    client.dispose();
    core.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (kind: PendingPrompt['kind']): Promise<PendingPrompt> => {
    await vi.waitFor(() => expect(prompts.at(-1)?.[0]?.kind).toBe(kind));
    return prompts.at(-1)![0]!;
  };

  it('sends the open prompts on subscribe and on change, and takes the answers', async () => {
    await vi.waitFor(() => expect(prompts).toEqual([[]]));
    const profile = await client.services.nodes.saveProfile({
      kind: 'ssh',
      name: 'node-1',
      host: '10.0.0.5',
    });
    const connecting = client.services.nodes.connect(profile.id);

    const hostKey = await open('host-key');
    expect(hostKey).toMatchObject({ nodeId: profile.id, nodeName: 'node-1', hostKey: fakeHostKey });
    await client.services.nodes.answerPrompt(hostKey.id, { kind: 'host-key', trust: true });

    const passphrase = await open('passphrase');
    // An answer of the wrong kind is refused and leaves the prompt open.
    await expect(
      client.services.nodes.answerPrompt(passphrase.id, { kind: 'host-key', trust: true }),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(
      client.services.nodes.answerPrompt(passphrase.id, null as never),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    await client.services.nodes.answerPrompt(passphrase.id, {
      kind: 'passphrase',
      passphrase: 'open sesame',
    });

    await expect(connecting).resolves.toMatchObject({ state: 'connected', kind: 'ssh' });
    expect(prompts.at(-1)).toEqual([]);
    expect(JSON.stringify(prompts)).not.toContain('open sesame');
    // Answered already: gone.
    await expect(
      client.services.nodes.answerPrompt(passphrase.id, { kind: 'passphrase', passphrase: 'x' }),
    ).rejects.toMatchObject({ code: 'not-found' });
  });

  it('cancels a passphrase prompt with an answer that has no passphrase', async () => {
    const profile = await client.services.nodes.saveProfile({
      kind: 'ssh',
      name: 'node-1',
      host: '10.0.0.5',
    });
    const connecting = client.services.nodes.connect(profile.id);
    await client.services.nodes.answerPrompt((await open('host-key')).id, {
      kind: 'host-key',
      trust: true,
    });
    // JSON drops `passphrase: undefined`: the answer arrives without the field.
    await client.services.nodes.answerPrompt((await open('passphrase')).id, {
      kind: 'passphrase',
      passphrase: undefined,
    });
    await expect(connecting).rejects.toMatchObject({
      code: 'cancelled',
      message: 'Login cancelled: no passphrase was given for /keys/locked.',
    });
    await vi.waitFor(() => expect(prompts.at(-1)).toEqual([]));
  });
});
