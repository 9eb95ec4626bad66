/**
 * A container's files on a node reached over SSH, for real: the composed core with a saved
 * SSH profile in front of the lab's first runtime (a real OpenSSH server on 127.0.0.1),
 * its services over the RPC as the UI calls them. A file goes down and another up with
 * matching sha256s, the exec's streams carried by the SSH dialer, and an upload that
 * fails leaves nothing behind on that path too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import { createCore, type Core } from '../../electron/core/composition';
import { filesLimits, type FileTransfer, type SshNodeProfile } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { rejection } from '../support/errors';
import { shellIn, transferOf, until } from '../support/files';
import {
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  podSandboxConfig,
} from '../support/lab';
import { Sshd, generateKey } from '../support/sshd';

const runtime = labRuntimes()[0]!;
const MiB = 1024 * 1024;
const size = 8 * MiB;
const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

let dir: string;
let sshd: Sshd;
let core: Core;
let client: RpcClient;
let cri: CriClient;
let profile: SshNodeProfile;
let podId = '';
let box = '';

const shell = shellIn(() => cri);
const exec = (script: string): Promise<string> => shell(box, script);
const transfer = (id: string): Promise<FileTransfer | undefined> => transferOf(client, id);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-files-ssh-'));
  const bridges = join(dir, 'bridges');
  mkdirSync(bridges);
  const key = await generateKey(join(dir, 'id_ed25519'));
  sshd = await Sshd.create({ authorizedKeys: [key.publicKey] });
  const knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
  core = createCore({
    configDir: join(dir, 'config'),
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
    logFile: false,
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
  const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
  serve(serverPort, core.services, core.events);
  client = createClient(clientPort);
  profile = (await client.services.nodes.saveProfile({
    kind: 'ssh',
    name: 'files-node',
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    identityFiles: [key.privateKeyPath],
    identitiesOnly: true,
    runtimeEndpoint: runtime.endpoint,
    connectTimeoutSeconds: 15,
    timeoutMs: 15_000,
  })) as SshNodeProfile;
  expect(await client.services.nodes.connect(profile.id)).toMatchObject({
    kind: 'ssh',
    state: 'connected',
  });
  cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
  const pod = podSandboxConfig('files-ssh', { runtime, labels: { 'porthole.case': 'files-ssh' } });
  podId = await cri.runPod(pod);
  box = await createLabContainer(cri, podId, busyboxContainerConfig('box', ['sleep', '3600']), pod);
  await cri.startContainer(box);
  await exec(`mkdir -p /data && head -c ${size} /dev/urandom > /data/down.bin`);
}, 120_000);

afterAll(async () => {
  client?.dispose();
  core?.dispose();
  if (podId !== '') {
    await cri.stopPod(podId, 0).catch(() => undefined);
    await cri.removePod(podId).catch(() => undefined);
  }
  cri?.dispose();
  await sshd?.dispose();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('files on an SSH node', () => {
  it('downloads a file through the SSH dialer with a matching sha256', async () => {
    const [expected] = (await exec('sha256sum /data/down.bin')).split(' ');
    const prepared = await client.services.files.download({
      nodeId: profile.id,
      containerId: box,
      path: '/data/down.bin',
    });
    const download = await core.downloads(prepared.transferId);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of download!.body as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.byteLength;
    }
    expect({ bytes, sha256: hash.digest('hex') }).toEqual({ bytes: size, sha256: expected });
    await until(async () => (await transfer(prepared.transferId))?.state === 'done', 'it is done');
    expect(await transfer(prepared.transferId)).toMatchObject({
      via: 'direct',
      checksum: 'match',
      sha256: expected,
    });
  });

  it('uploads a file through the SSH dialer with a matching sha256', async () => {
    const data = randomBytes(size);
    const started = await client.services.files.upload({
      nodeId: profile.id,
      containerId: box,
      directory: '/data',
      files: [{ path: 'up.bin', size }],
    });
    for (let at = 0; at < size; at += filesLimits.maxChunkBytes) {
      await client.services.files.write(
        started.transferId,
        data.subarray(at, at + filesLimits.maxChunkBytes),
      );
    }
    expect(await client.services.files.finish(started.transferId)).toMatchObject({
      state: 'done',
      bytes: size,
      checksum: 'match',
      sha256: sha256(data),
    });
    expect((await exec('sha256sum /data/up.bin')).split(' ')[0]).toBe(sha256(data));
  });

  it('leaves nothing behind when an upload over SSH is cancelled', async () => {
    const started = await client.services.files.upload({
      nodeId: profile.id,
      containerId: box,
      directory: '/data',
      files: [{ path: 'half.bin', size: 4 * MiB }],
    });
    await client.services.files.write(
      started.transferId,
      new Uint8Array(filesLimits.maxChunkBytes),
    );
    await client.services.files.cancel(started.transferId);
    const refused = await rejection(client.services.files.finish(started.transferId));
    expect(refused.code).toBe('cancelled');
    await until(
      async () => !(await exec('ls -a /data')).includes('.porthole-upload'),
      'the staging directory is removed',
    );
    expect(await exec('ls -a /data')).not.toContain('half.bin');
  });
});
