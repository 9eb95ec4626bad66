/**
 * Debug containers through the core's services, over the RPC as the UI calls them,
 * against every lab runtime and over SSH: a container whose image is the lab's pause image
 * (no shell at all) is debugged from busybox in its PID namespace (NamespaceMode.TARGET):
 * its pid 1 is seen and a file of its root read through /proc/1/root; closing the terminal
 * removes the debug container; a kept one survives its terminal and a reconnect and is
 * removable; one left by a Porthole that went away is recognised by its label; refusals
 * are said in words.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../electron/core/composition';
import { CriClient } from '../../electron/core/base/cri';
import type { Disposable } from '../../shared/lifecycle';
import type { DebugStarted, SshNodeProfile, TerminalInfo } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { rejection } from '../support/errors';
import {
  busyboxContainerConfig,
  createLabContainer,
  LAB_IMAGES,
  labRuntimes,
  podSandboxConfig,
  type LabPodSandboxConfig,
  type LabRuntime,
} from '../support/lab';
import { asTerminalShowsIt } from '../support/runtime-facts';
import { Sshd, generateKey } from '../support/sshd';

/** One terminal's output as text, for waiting on what a shell printed. */
class Output implements Disposable {
  private text = '';
  ended = false;
  private readonly waiters = new Set<() => void>();
  private readonly subscription: Disposable;

  constructor(
    private readonly client: RpcClient,
    readonly info: TerminalInfo,
  ) {
    this.subscription = client.subscribe('terminal', { terminalId: info.terminalId }, (event) => {
      if (event.type === 'output') this.text += Buffer.from(event.data).toString('utf8');
      if (event.type === 'exit') this.ended = true;
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  write(data: string): void {
    this.client.notify.terminals.write(this.info.terminalId, new TextEncoder().encode(data));
  }

  /** Waits until the output (from `from` on) matches. */
  waitFor(pattern: RegExp, from = 0, timeoutMs = 15_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(asTerminalShowsIt(this.text).slice(from));
        if (match === null) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(match);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${pattern}; got ${JSON.stringify(this.text)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  get length(): number {
    return asTerminalShowsIt(this.text).length;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** Waits until `check` resolves true, asking again after each answer. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Lab {
  core: Core;
  client: RpcClient;
  dispose(): void;
}

function startCore(
  runtime: LabRuntime,
  dir: string,
  extra: Parameters<typeof createCore>[0] = {},
): Lab {
  const core = createCore({
    configDir: join(dir, 'config'),
    env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
    logFile: false,
    ...extra,
  });
  const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
  const server = serve(serverPort, core.services, core.events);
  const client = createClient(clientPort);
  return {
    core,
    client,
    dispose: () => {
      client.dispose();
      server.dispose();
      core.dispose();
    },
  };
}

/** The shared checks: a shell in the debug container sees the pause target as pid 1. */
function debugCases(
  setup: () => {
    client: RpcClient;
    nodeId: string;
    cri: CriClient;
    target: () => string;
    exited: () => string;
  },
) {
  const gone = async (containerId: string): Promise<boolean> =>
    (await setup().cri.listContainers({ id: containerId })).length === 0;

  const openShell = async (started: DebugStarted): Promise<Output> => {
    const { client, nodeId } = setup();
    const info = await client.services.terminals.open({
      nodeId,
      containerId: started.container.containerId,
      kind: 'exec',
      cols: 120,
      rows: 30,
    });
    return new Output(client, info);
  };

  it('debugs a container with no shell: its pid 1 and its root at /proc/1/root; closing removes it', async () => {
    const { client, nodeId, cri, target } = setup();
    expect((await rejection(client.services.terminals.probeShell(nodeId, target()))).code).toBe(
      'not-found',
    );
    const started = await client.services.debug.start({
      nodeId,
      targetId: target(),
      image: LAB_IMAGES.busybox,
    });
    expect(started).toMatchObject({
      targetPid: 1,
      pulled: false,
      container: { targetId: target(), targetName: 'no-shell', status: 'active', state: 'running' },
    });
    expect(started.banner).toMatch(
      /^Debugging no-shell from debugger-\w{5} \(.+busybox.+\): no-shell's processes are visible here \(ps\); no-shell is pid 1, its filesystem is at \/proc\/1\/root\.$/,
    );
    const id = started.container.containerId;
    const detail = await cri.containerStatus(id);
    expect(detail.labels).toMatchObject({
      'io.porthole.debug': 'true',
      'io.porthole.debug.target-id': target(),
    });
    expect(detail.podSandboxId).toBe((await cri.containerStatus(target())).podSandboxId);

    const shell = await openShell(started);
    shell.write('tr "\\0" " " < /proc/1/cmdline; echo "<- pid 1"\r');
    await shell.waitFor(/\/pause <- pid 1/);
    // The pause image holds one file, its binary: read its ELF magic through /proc/1/root.
    const from = shell.length;
    shell.write('head -c 4 /proc/1/root/pause | tail -c 3; echo " <- magic"\r');
    await shell.waitFor(/ELF <- magic/, from);
    // The pod's network: the same interfaces as the target's.
    const ipFrom = shell.length;
    shell.write('cat /proc/1/net/dev | wc -l; cat /proc/self/net/dev | wc -l\r');
    const [, a, b] = await shell.waitFor(/\r\n(\d+)\r\n(\d+)\r\n/, ipFrom);
    expect(a).toBe(b);

    await client.services.terminals.close(shell.info.terminalId);
    shell.dispose();
    await until(() => gone(id), 'the debug container is removed');
    expect(await client.services.debug.list(nodeId)).toEqual([]);
  });

  it('keeps a kept one past its terminal and a reconnect, then removes it', async () => {
    const { client, nodeId, target } = setup();
    const start = (keep: boolean) =>
      client.services.debug.start({ nodeId, targetId: target(), image: LAB_IMAGES.busybox, keep });
    // A control that is not kept: once it is gone, the kept one would have gone too.
    const [kept, control] = await Promise.all([start(true), start(false)]);
    const id = kept.container.containerId;
    expect(kept.container.status).toBe('kept');
    const shells = await Promise.all([openShell(kept), openShell(control)]);
    for (const shell of shells) {
      shell.write('echo kept-$((40+2))\r');
      await shell.waitFor(/kept-42/);
    }
    for (const shell of shells) {
      await client.services.terminals.close(shell.info.terminalId);
      shell.dispose();
    }
    await until(() => gone(control.container.containerId), 'the control is removed');
    expect(await gone(id)).toBe(false);

    await client.services.nodes.disconnect(nodeId);
    await client.services.nodes.connect(nodeId);
    expect(await client.services.debug.list(nodeId)).toEqual([
      expect.objectContaining({ containerId: id, status: 'kept', state: 'running' }),
    ]);
    await client.services.debug.remove(nodeId, id);
    expect(await gone(id)).toBe(true);
  });

  it('says in words why it cannot: a stopped target, an image that is not there, not a debug container', async () => {
    const { client, nodeId, exited, target } = setup();
    const stopped = await rejection(client.services.debug.start({ nodeId, targetId: exited() }));
    expect(stopped).toMatchObject({ code: 'failed-precondition', step: 'target' });
    expect(stopped.message).toBe(
      'exited is exited: only a running container has processes to debug.',
    );

    const image = 'localhost/porthole/no-such-toolbox:1';
    const pull = await rejection(
      client.services.debug.start({ nodeId, targetId: target(), image }),
    );
    expect(pull).toMatchObject({ step: 'pull' });
    expect(pull.message).toBe(`The toolbox image ${image} could not be pulled.`);
    expect(pull.detail).not.toBe('');

    const refused = await rejection(client.services.debug.remove(nodeId, target()));
    expect(refused).toMatchObject({ code: 'permission-denied' });
    expect(refused.message).toBe('no-shell is not a Porthole debug container: it is left alone.');
    const bad = await rejection(
      client.services.debug.start({ nodeId, targetId: target(), image: 'not an image' }),
    );
    expect(bad.code).toBe('invalid-argument');
  });
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const nodeId = `local:${runtime.endpoint}`;
    let dir: string;
    let lab: Lab;
    let cri: CriClient;
    let pod: LabPodSandboxConfig;
    let podId = '';
    let target = '';
    let exited = '';

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'porthole-debug-'));
      lab = startCore(runtime, dir);
      await lab.client.services.nodes.connect(nodeId);
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
      pod = podSandboxConfig('debug', { runtime, labels: { 'porthole.case': 'debug' } });
      podId = await cri.runPod(pod);
      target = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig('no-shell', [], { image: LAB_IMAGES.pause }),
        pod,
      );
      await cri.startContainer(target);
      exited = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig('exited', ['true']),
        pod,
      );
      await cri.startContainer(exited);
      await until(
        async () => (await cri.containerStatus(exited)).state === 'exited',
        'the `true` container exits',
      );
    });

    afterAll(async () => {
      lab?.dispose();
      if (podId !== '') {
        await cri.stopPod(podId, 0).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
      }
      cri?.dispose();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    debugCases(() => ({
      client: lab.client,
      nodeId,
      cri,
      target: () => target,
      exited: () => exited,
    }));

    it('recognises one left by a Porthole that went away by its label, and removes it', async () => {
      const other = startCore(runtime, join(dir, 'other'));
      let id: string;
      try {
        await other.client.services.nodes.connect(nodeId);
        const started = await other.client.services.debug.start({
          nodeId,
          targetId: target,
          image: LAB_IMAGES.busybox,
        });
        id = started.container.containerId;
      } finally {
        // As a crash would: nothing is cleaned up on the way out.
        other.dispose();
      }
      expect(await lab.client.services.debug.list(nodeId)).toEqual([
        expect.objectContaining({
          containerId: id,
          status: 'leftover',
          targetName: 'no-shell',
          podName: `${pod.metadata.namespace}/${pod.metadata.name}`,
        }),
      ]);
      await lab.client.services.debug.remove(nodeId, id);
      expect(await cri.listContainers({ id })).toEqual([]);
    });
  },
);

describe('over SSH', () => {
  const runtime = labRuntimes()[0]!;
  let dir: string;
  let sshd: Sshd;
  let lab: Lab;
  let cri: CriClient;
  let profile: SshNodeProfile;
  let podId = '';
  let target = '';
  let exited = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'porthole-debug-ssh-'));
    mkdirSync(join(dir, 'bridges'));
    const key = await generateKey(join(dir, 'id_ed25519'));
    sshd = await Sshd.create({ authorizedKeys: [key.publicKey] });
    const knownHostsPath = join(dir, 'known_hosts');
    writeFileSync(knownHostsPath, `${sshd.knownHostsLine}\n`);
    lab = startCore(runtime, dir, {
      ssh: {
        configPaths: [],
        knownHostsPath,
        globalKnownHostsPaths: [],
        agentSocket: null,
        environment: { homeDir: dir },
        tempRoot: join(dir, 'bridges'),
      },
    });
    profile = (await lab.client.services.nodes.saveProfile({
      kind: 'ssh',
      name: 'debug-node',
      host: '127.0.0.1',
      port: sshd.port,
      user: 'root',
      identityFiles: [key.privateKeyPath],
      identitiesOnly: true,
      runtimeEndpoint: runtime.endpoint,
      connectTimeoutSeconds: 15,
      timeoutMs: 15_000,
    })) as SshNodeProfile;
    await lab.client.services.nodes.connect(profile.id);
    cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 20_000 });
    const pod = podSandboxConfig('debug-ssh', { runtime, labels: { 'porthole.case': 'debug' } });
    podId = await cri.runPod(pod);
    target = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('no-shell', [], { image: LAB_IMAGES.pause }),
      pod,
    );
    await cri.startContainer(target);
    exited = await createLabContainer(cri, podId, busyboxContainerConfig('exited', ['true']), pod);
    await cri.startContainer(exited);
    await until(
      async () => (await cri.containerStatus(exited)).state === 'exited',
      'the `true` container exits',
    );
  });

  afterAll(async () => {
    lab?.dispose();
    if (podId !== '') {
      await cri.stopPod(podId, 0).catch(() => undefined);
      await cri.removePod(podId).catch(() => undefined);
    }
    cri?.dispose();
    await sshd?.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  debugCases(() => ({
    client: lab.client,
    nodeId: profile.id,
    cri,
    target: () => target,
    exited: () => exited,
  }));
});
