/**
 * A container's files when the container says no, against every lab runtime, through the
 * core's services over the RPC as the UI calls them: a user who may not write where the
 * upload goes or read what is downloaded (the exec runs as uid 1000, so the permissions
 * bite), and a file system that fills up under an upload (the pod's /dev/shm tmpfs, filled
 * but for a little first). Each error comes in words, and nothing half-written is left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import { createCore, type Core } from '../../electron/core/composition';
import { filesLimits, type FileTransfer } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { rejection } from '../support/errors';
import { shellIn, transferOf } from '../support/files';
import {
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
} from '../support/lab';

const MiB = 1024 * 1024;

/** Reads a body to its end; what it ended with. */
async function settle(body: Readable): Promise<{ bytes: number; error?: unknown }> {
  let bytes = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) bytes += chunk.byteLength;
    return { bytes };
  } catch (error) {
    return { bytes, error };
  }
}

describe.each(labRuntimes().map((runtime) => [runtime.id, runtime] as const))(
  '%s',
  (_id, runtime: LabRuntime) => {
    const nodeId = `local:${runtime.endpoint}`;
    let dir: string;
    let core: Core;
    let client: RpcClient;
    let disposeRpc: () => void;
    let cri: CriClient;
    let podId = '';
    let root = '';
    let user = '';

    const exec = shellIn(() => cri);
    const transfer = (id: string): Promise<FileTransfer | undefined> => transferOf(client, id);

    /**
     * Uploads `size` zero bytes as one file: the error `finish` rejects with, and the bytes
     * the core took before its writes were refused.
     */
    const failedUpload = async (containerId: string, directory: string, size: number) => {
      const started = await client.services.files.upload({
        nodeId,
        containerId,
        directory,
        files: [{ path: 'up.bin', size }],
      });
      const chunk = new Uint8Array(filesLimits.maxChunkBytes);
      let sent = 0;
      try {
        while (sent < size) {
          const piece = chunk.subarray(0, Math.min(chunk.byteLength, size - sent));
          await client.services.files.write(started.transferId, piece);
          sent += piece.byteLength;
        }
      } catch {
        // The container gave up early: finish says why.
      }
      const error = await rejection(client.services.files.finish(started.transferId));
      return { error, sent, state: (await transfer(started.transferId))?.state };
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'porthole-files-errors-'));
      core = createCore({
        configDir: join(dir, 'config'),
        env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
        logFile: false,
      });
      const [clientPort, serverPort] = createMessagePortPair({ clone: 'json' });
      const server = serve(serverPort, core.services, core.events);
      client = createClient(clientPort);
      disposeRpc = () => {
        client.dispose();
        server.dispose();
      };
      await client.services.nodes.connect(nodeId);
      cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
      const pod = podSandboxConfig('files-errors', {
        runtime,
        labels: { 'porthole.case': 'files-errors' },
      });
      podId = await cri.runPod(pod);
      const start = async (name: string, uid?: number): Promise<string> => {
        const config = busyboxContainerConfig(name, ['sleep', '3600']);
        const id = await createLabContainer(
          cri,
          podId,
          uid === undefined
            ? config
            : {
                ...config,
                linux: {
                  ...config.linux,
                  securityContext: { ...config.linux?.securityContext, runAsUser: { value: uid } },
                },
              },
          pod,
        );
        await cri.startContainer(id);
        return id;
      };
      root = await start('root');
      user = await start('user', 1000);
    }, 120_000);

    afterAll(async () => {
      disposeRpc?.();
      core?.dispose();
      if (podId !== '') {
        await cri.stopPod(podId, 0).catch(() => undefined);
        await cri.removePod(podId).catch(() => undefined);
      }
      cri?.dispose();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('says permission denied for an upload where the user may not write at once, and leaves nothing', async () => {
      expect((await exec(user, 'id -u')).trim()).toBe('1000');
      const before = await exec(user, 'ls -a /etc');
      const size = 256 * MiB;
      const { error, state, sent } = await failedUpload(user, '/etc', size);
      expect(error).toMatchObject({
        code: 'permission-denied',
        message: 'Permission denied: uploading to /etc.',
      });
      expect(state).toBe('failed');
      // The script gave up before it said it was ready, and nothing is sent before: not
      // one byte went, however fast the core could have sent them (was: every byte was
      // read away in the container first).
      expect(sent).toBe(0);
      expect(await exec(user, 'ls -a /etc')).toBe(before);
    });

    it('says permission denied for a download the user may not read, and ends its body in error', async () => {
      await exec(user, 'head -c 300000 /dev/urandom > /tmp/secret && chmod 000 /tmp/secret');
      const prepared = await client.services.files.download({
        nodeId,
        containerId: user,
        path: '/tmp/secret',
      });
      const download = await core.downloads(prepared.transferId);
      const { error } = await settle(download!.body);
      // The page's download fails, so the browser drops what it had saved.
      expect(error).toMatchObject({ code: 'permission-denied' });
      expect(await transfer(prepared.transferId)).toMatchObject({
        state: 'failed',
        error: {
          code: 'permission-denied',
          message: 'Permission denied: downloading /tmp/secret.',
        },
      });
    });

    it('says no space left when the file system fills under an upload, and removes what it wrote', async () => {
      // All but 256 KiB of the pod's /dev/shm taken, so a 2 MiB upload can't fit.
      const free = Number((await exec(root, "df -k /dev/shm | tail -1 | awk '{print $4}'")).trim());
      expect(free).toBeGreaterThan(1024);
      await exec(root, `head -c ${(free - 256) * 1024} /dev/zero > /dev/shm/fill`);
      try {
        const { error, state } = await failedUpload(root, '/dev/shm', 2 * MiB);
        expect(error).toMatchObject({ code: 'resource-exhausted' });
        expect(error.message).toBe(
          'No space left in the container: uploading to /dev/shm stopped, and what it wrote was removed.',
        );
        expect(state).toBe('failed');
        expect((await exec(root, 'ls -a /dev/shm')).split('\n').filter(Boolean).sort()).toEqual([
          '.',
          '..',
          'fill',
        ]);
      } finally {
        await exec(root, 'rm -f /dev/shm/fill');
      }
    });
  },
);
