/**
 * SSH nodes in the app's core, for real: the composed core (createCore) with its services
 * and events over the RPC, a real OpenSSH server on 127.0.0.1 in front of the lab's
 * containerd. A user saves an SSH profile, connects it, and answers the host key and
 * passphrase questions through the contract (the `prompts` event and
 * `nodes.answerPrompt`), as the UI does; the node then lists the runtime's pods through
 * the SSH bridge, and disconnecting closes the SSH connection and its bridge.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import { fingerprintSha256 } from '../../electron/core/base/ssh';
import type { AppError } from '../../shared/errors';
import type { NodeStatus, PendingPrompt, ResourceDelta, SshNodeProfile } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { stringify } from 'yaml';
import { busyboxContainerConfig, labRuntimes, podSandboxConfig, TEST_LABEL } from '../support/lab';
import { Sshd, generateKey, type KeyPair } from '../support/sshd';

const runtime = labRuntimes()[0]!;
const passphrase = 'correct horse battery staple';

let dir: string;
let bridges: string;
let knownHostsPath: string;
let key: KeyPair;
let locked: KeyPair;
let sshd: Sshd;
let core: Core;
let client: RpcClient;
let cri: CriClient;
/** Every `prompts` payload, newest last. */
const promptLists: (readonly PendingPrompt[])[] = [];

/** Waits until `check` passes (it throws until then). */
async function eventually<T>(check: () => T, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The open prompt at the head of the latest `prompts` event, once there is one. */
function nextPrompt<K extends PendingPrompt['kind']>(
  kind: K,
  test: (prompt: Extract<PendingPrompt, { kind: K }>) => boolean = () => true,
): Promise<Extract<PendingPrompt, { kind: K }>> {
  return eventually(() => {
    const prompt = promptLists.at(-1)?.[0];
    if (prompt?.kind !== kind) throw new Error(`no ${kind} prompt yet`);
    const typed = prompt as Extract<PendingPrompt, { kind: K }>;
    if (!test(typed)) throw new Error(`the ${kind} prompt is not the expected one yet`);
    return typed;
  });
}

const noOpenPrompts = (): Promise<void> => eventually(() => expect(promptLists.at(-1)).toEqual([]));

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

function saveProfile(name: string, identityFile: string): Promise<SshNodeProfile> {
  return client.services.nodes.saveProfile({
    kind: 'ssh',
    name,
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    identityFiles: [identityFile],
    identitiesOnly: true,
    runtimeEndpoint: runtime.endpoint,
    connectTimeoutSeconds: 15,
    timeoutMs: 15_000,
  }) as Promise<SshNodeProfile>;
}

async function statusOf(nodeId: string): Promise<NodeStatus | undefined> {
  return (await client.services.nodes.list()).find((status) => status.nodeId === nodeId);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-app-ssh-'));
  bridges = join(dir, 'bridges');
  mkdirSync(bridges);
  key = await generateKey(join(dir, 'id_ed25519'));
  locked = await generateKey(join(dir, 'id_locked'), { passphrase });
  sshd = await Sshd.create({ authorizedKeys: [key.publicKey, locked.publicKey] });
  knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, '');

  core = createCore({
    configDir: join(dir, 'config'),
    // Discovery sees only the lab's runtime: no crictl.yaml, no system sockets.
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
    // The test's own SSH world: no ~/.ssh/config, no agent, its own known_hosts.
    ssh: {
      configPaths: [],
      knownHostsPath,
      globalKnownHostsPaths: [],
      agentSocket: null,
      environment: { homeDir: dir },
      tempRoot: bridges,
    },
  });
  // JSON copies, as the WebSocket of browser mode does.
  const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
  serve(serverPort, core.services, core.events);
  client = createClient(clientPort);
  client.subscribe('prompts', undefined, (prompts) => promptLists.push(prompts));
  cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 15_000 });
});

afterAll(async () => {
  client?.dispose();
  core?.dispose();
  if (cri !== undefined) {
    const pods = await cri.listPods({ labels: { [TEST_LABEL]: 'app-ssh' } }).catch(() => []);
    for (const pod of pods) {
      await cri.stopPod(pod.id).catch(() => undefined);
      await cri.removePod(pod.id).catch(() => undefined);
    }
    cri.dispose();
  }
  await sshd?.dispose();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('an SSH node in the app', () => {
  let saved: SshNodeProfile | undefined;

  /** The `lab-node` profile, saved by the first test that needs it, disconnected. */
  async function labNode(): Promise<SshNodeProfile> {
    saved ??= await saveProfile('lab-node', key.privateKeyPath);
    if ((await statusOf(saved.id))?.state !== 'disconnected')
      await client.services.nodes.disconnect(saved.id);
    return saved;
  }

  /** Whether the node's host key is known: trusted before, or unknown (an empty file). */
  function knowHostKey(known: boolean): void {
    writeFileSync(knownHostsPath, known ? `${sshd.knownHostsLine}\n` : '');
  }

  /** `lab-node`, connected, its host key trusted. */
  async function connectedNode(): Promise<SshNodeProfile> {
    const profile = await labNode();
    knowHostKey(true);
    await client.services.nodes.connect(profile.id);
    return profile;
  }

  it('sends the open prompts on subscribe: none yet', async () => {
    await eventually(() => expect(promptLists[0]).toEqual([]));
  });

  it('asks about the unknown host key, connects once it is trusted, and remembers it', async () => {
    const profile = await labNode();
    knowHostKey(false);
    expect(await statusOf(profile.id)).toMatchObject({
      kind: 'ssh',
      origin: 'saved',
      state: 'disconnected',
      endpoint: `ssh://root@127.0.0.1:${sshd.port}`,
    });

    const connecting = client.services.nodes.connect(profile.id);
    const prompt = await nextPrompt('host-key');
    const offered = fingerprintSha256(Buffer.from(sshd.hostKey.publicKey.split(' ')[1]!, 'base64'));
    expect(prompt).toMatchObject({
      nodeId: profile.id,
      nodeName: 'lab-node',
      hostKey: {
        host: '127.0.0.1',
        port: sshd.port,
        keyType: 'ssh-ed25519',
        fingerprintSha256: offered,
      },
    });
    expect((await statusOf(profile.id))?.state).toBe('connecting');
    await client.services.nodes.answerPrompt(prompt.id, { kind: 'host-key', trust: true });

    const status = await connecting;
    expect(status).toMatchObject({
      nodeId: profile.id,
      kind: 'ssh',
      state: 'connected',
      runtime: { runtimeName: runtime.kind },
      ssh: { state: 'connected' },
      runtimeEndpoint: `unix://${runtime.socketPath}`,
    });
    await noOpenPrompts();
    expect(readFileSync(knownHostsPath, 'utf8')).toContain(
      sshd.knownHostsLine.split(' ').slice(1).join(' '),
    );
    // One bridge socket, in the directory the test gave the core.
    expect(readdirSync(bridges)).toHaveLength(1);
  });

  it('lists a pod created on the node through the resources subscription', async () => {
    const profile = await connectedNode();
    const podId = await cri.runPod(
      podSandboxConfig('app-ssh-pod', { runtime, labels: { [TEST_LABEL]: 'app-ssh' } }),
    );
    const deltas: ResourceDelta[] = [];
    const subscription = client.subscribe('resources', { nodeId: profile.id }, (delta) =>
      deltas.push(delta),
    );
    try {
      const seen = await eventually(() => {
        const pod = deltas
          .flatMap((delta) => delta.pods.upserted)
          .find((candidate) => candidate.id === podId);
        if (pod === undefined) throw new Error('the pod is not listed yet');
        return pod;
      });
      expect(deltas[0]?.reset).toBe(true);
      expect(seen).toMatchObject({ nodeId: profile.id, name: 'app-ssh-pod' });
    } finally {
      subscription.dispose();
      await cri.stopPod(podId);
      await cri.removePod(podId);
    }
  });

  it('runs a pod from a spec over SSH, its log directory made on the node through SFTP', async () => {
    // CRI-O where the lab has it: it fails CreateContainer when that directory is missing.
    const target = labRuntimes().find((candidate) => candidate.kind === 'cri-o') ?? runtime;
    const profile = await labNode();
    knowHostKey(true);
    const viaCrio = await client.services.nodes.saveProfile({
      ...profile,
      id: undefined,
      name: `lab-node ${target.id}`,
      runtimeEndpoint: target.endpoint,
    });
    const pod = podSandboxConfig('app-ssh-spec', {
      runtime: target,
      labels: { [TEST_LABEL]: 'app-ssh' },
    });
    try {
      // The host key is known: no question.
      expect(await client.services.nodes.connect(viaCrio.id)).toMatchObject({
        state: 'connected',
        runtime: { runtimeName: target.kind },
      });
      const spec = stringify({
        pod,
        containers: [busyboxContainerConfig('web', ['sleep', '3600'])],
      });
      const result = await client.services.lifecycle.runFromSpec(viaCrio.id, spec);
      expect(result.containerIds).toHaveLength(1);
      expect(statSync(join(pod.logDirectory, 'web')).isDirectory()).toBe(true);
      await client.services.lifecycle.removePod(viaCrio.id, result.podSandboxId);
    } finally {
      await client.services.nodes.removeProfile(viaCrio.id);
      rmSync(pod.logDirectory, { recursive: true, force: true });
    }
  });

  it('closes the SSH connection and its bridge on disconnect', async () => {
    const profile = await connectedNode();
    const [bridge] = readdirSync(bridges);
    expect(bridge).toMatch(/^porthole-ssh-/);
    await client.services.nodes.disconnect(profile.id);
    expect(readdirSync(bridges)).toEqual([]);
    expect(await statusOf(profile.id)).toMatchObject({
      state: 'disconnected',
      ssh: { state: 'disconnected', reason: 'not connected' },
    });
    await expect(client.services.resources.podDetail(profile.id, 'x')).rejects.toMatchObject({
      code: 'failed-precondition',
    });
  });

  it('asks for an encrypted key’s passphrase again after a wrong one', async () => {
    const lockedProfile = await saveProfile('locked-node', locked.privateKeyPath);
    // The host key is known: the first question is the passphrase.
    knowHostKey(true);
    const connecting = client.services.nodes.connect(lockedProfile.id);
    const first = await nextPrompt('passphrase');
    expect(first).toMatchObject({
      nodeId: lockedProfile.id,
      nodeName: 'locked-node',
      keyPath: locked.privateKeyPath,
      attempt: 1,
    });
    await client.services.nodes.answerPrompt(first.id, {
      kind: 'passphrase',
      passphrase: 'not it',
    });
    const second = await nextPrompt('passphrase', (prompt) => prompt.id !== first.id);
    expect(second).toMatchObject({ keyPath: locked.privateKeyPath, attempt: 2 });
    await client.services.nodes.answerPrompt(second.id, { kind: 'passphrase', passphrase });

    await expect(connecting).resolves.toMatchObject({
      state: 'connected',
      ssh: { state: 'connected' },
      runtime: { runtimeName: runtime.kind },
    });
    await noOpenPrompts();
    // No prompt ever carried a passphrase.
    expect(JSON.stringify(promptLists)).not.toContain(passphrase);
    expect(JSON.stringify(promptLists)).not.toContain('not it');
    await client.services.nodes.disconnect(lockedProfile.id);
    expect(readdirSync(bridges)).toEqual([]);
  });

  it('answers a prompt that is gone with not-found', async () => {
    await expect(
      client.services.nodes.answerPrompt('no-such-prompt', { kind: 'host-key', trust: true }),
    ).rejects.toMatchObject({ code: 'not-found' });
  });

  it('fails with a clear error when the host key is declined', async () => {
    const profile = await labNode();
    knowHostKey(false);
    const connecting = client.services.nodes.connect(profile.id);
    const prompt = await nextPrompt('host-key');
    await client.services.nodes.answerPrompt(prompt.id, { kind: 'host-key', trust: false });
    const error = await rejection(connecting);
    expect(error).toMatchObject({
      code: 'cancelled',
      message: `The host key of [127.0.0.1]:${sshd.port} (${prompt.hostKey.fingerprintSha256}) was not trusted; not connected to lab-node.`,
      hint: expect.stringContaining('fingerprint') as string,
    });
    await noOpenPrompts();
    expect(await statusOf(profile.id)).toMatchObject({
      state: 'failed',
      error: { code: 'cancelled' },
      ssh: { state: 'disconnected', errorCode: 'cancelled' },
    });
    expect(readFileSync(knownHostsPath, 'utf8')).toBe('');
    expect(readdirSync(bridges)).toEqual([]);
  });

  it('withdraws the question when the node is disconnected while it is open', async () => {
    const profile = await labNode();
    knowHostKey(false);
    const connecting = client.services.nodes.connect(profile.id);
    await nextPrompt('host-key');
    await client.services.nodes.disconnect(profile.id);
    await expect(connecting).rejects.toMatchObject({ code: 'cancelled' });
    await noOpenPrompts();
    expect((await statusOf(profile.id))?.state).toBe('disconnected');
    expect(readdirSync(bridges)).toEqual([]);
  });
});
