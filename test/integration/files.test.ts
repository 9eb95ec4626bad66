/**
 * A container's files through the core's services, over the RPC as the UI calls them,
 * against every lab runtime: a listing with odd names and a symlink; 100 MiB down and up
 * with matching sha256; a directory tree down as a tar; an upload that fails or is
 * cancelled leaves nothing behind; cat where there is no tar; and a container with no
 * shell at all reached through its debug container at /proc/1/root.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../electron/core/base/cri';
import { openRemoteCommand } from '../../electron/core/base/streaming';
import type { Access } from '../../electron/core/features/files/access';
import { OutputTail } from '../../electron/core/features/files/transfer';
import {
  filesPrefix,
  mismatchExitCode,
  sumsEntry,
  sumsText,
  uploadCommand,
} from '../../electron/core/features/files/upload-script';
import { createCore, type Core } from '../../electron/core/composition';
import { filesLimits, type FileTransfer, type SessionSnapshot } from '../../shared/model';
import { createClient, createMessagePortPair, serve, type RpcClient } from '../../shared/rpc';
import { rejection } from '../support/errors';
import { shellIn, statesOf, transferOf, until } from '../support/files';
import {
  busyboxContainerConfig,
  createLabContainer,
  LAB_IMAGES,
  labRuntimes,
  podSandboxConfig,
  type LabRuntime,
} from '../support/lab';

const MiB = 1024 * 1024;
const bigSize = 100 * MiB;

/** The tree the listing and the directory download look at: odd names and a symlink. */
const treeScript = [
  'mkdir -p "/data/tree/sub dir" /data/ro',
  'printf hello > "/data/tree/with space.txt"',
  'printf line > "/data/tree/new',
  'line"',
  'printf x > "/data/tree/$(printf \'caf\\351\')"',
  'printf deep > "/data/tree/sub dir/deep.txt"',
  'ln -s "with space.txt" /data/tree/link',
  `head -c ${bigSize} /dev/urandom > /data/big`,
].join('\n');

/** Reads a download's body through, hashing it (the bytes are never held whole). */
async function drain(body: Readable): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A tar's entries: name, type, link target and the content of small files. */
async function tarEntries(
  body: Readable,
): Promise<Map<string, { type: string; text: string; link?: string }>> {
  const entries = new Map<string, { type: string; text: string; link?: string }>();
  const unpack = extract();
  body.pipe(unpack);
  for await (const entry of unpack) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.set(entry.header.name.replace(/\/$/, ''), {
      type: entry.header.type ?? '',
      text: Buffer.concat(chunks).toString('utf8'),
      ...(entry.header.linkname ? { link: entry.header.linkname } : {}),
    });
  }
  return entries;
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
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
    let box = '';
    let noTar = '';
    let noShell = '';

    const exec = shellIn(() => cri);
    const transfer = (id: string): Promise<FileTransfer | undefined> => transferOf(client, id);
    /** An upload of one small file, `text`, started and sent whole (not finished). */
    const sendText = async (
      containerId: string,
      directory: string,
      path: string,
      text: string,
    ): Promise<FileTransfer> => {
      const bytes = new TextEncoder().encode(text);
      const started = await client.services.files.upload({
        nodeId,
        containerId,
        directory,
        files: [{ path, size: bytes.length }],
      });
      await client.services.files.write(started.transferId, bytes);
      return started;
    };

    /** The monitor's session of a transfer, found by what it says moves. */
    const sessionOf = async (detail: string): Promise<SessionSnapshot | undefined> =>
      new Promise((resolve) => {
        const subscription = client.subscribe('sessions', undefined, (list) => {
          subscription.dispose();
          resolve(list.find((s) => s.detail === detail));
        });
      });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'porthole-files-'));
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
      const pod = podSandboxConfig('files', { runtime, labels: { 'porthole.case': 'files' } });
      podId = await cri.runPod(pod);
      const start = async (name: string, command: string[], image?: string): Promise<string> => {
        const id = await createLabContainer(
          cri,
          podId,
          busyboxContainerConfig(name, command, image !== undefined ? { image } : {}),
          pod,
        );
        await cri.startContainer(id);
        return id;
      };
      box = await start('box', ['sleep', '3600']);
      noTar = await start('no-tar', ['sleep', '3600']);
      noShell = await start('no-shell', [], LAB_IMAGES.pause);
      await exec(box, treeScript);
      await exec(noTar, 'rm /bin/tar && printf "no tar here" > /tmp/note.txt');
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

    it('lists a directory: sizes, modes, owners, mtimes, odd names and a symlink', async () => {
      const listing = await client.services.files.list({
        nodeId,
        containerId: box,
        path: '/data/tree/',
      });
      expect(listing).toMatchObject({
        path: '/data/tree',
        truncated: false,
        access: { via: 'direct', tar: true, sha256: true },
      });
      const byName = new Map(listing.entries.map((entry) => [entry.name, entry]));
      expect(byName.get('sub dir')).toMatchObject({ type: 'directory', owner: 'root' });
      expect(byName.get('with space.txt')).toMatchObject({
        type: 'file',
        size: 5,
        mode: 0o644,
        uid: 0,
      });
      expect(byName.get('new\nline')).toMatchObject({ type: 'file', size: 4 });
      expect(byName.get('link')).toMatchObject({ type: 'symlink', linkTarget: 'with space.txt' });
      const latin1 = listing.entries.find((entry) => entry.undecodable === true);
      expect(latin1).toMatchObject({ name: 'caf\ufffd', type: 'file', size: 1 });
      expect(Math.abs(byName.get('with space.txt')!.modifiedAt - Date.now())).toBeLessThan(
        10 * 60_000,
      );
      // Directories first.
      expect(listing.entries[0]!.type).toBe('directory');
    });

    it('says in words what is wrong with a path', async () => {
      const missing = await rejection(
        client.services.files.list({ nodeId, containerId: box, path: '/no/such/dir' }),
      );
      expect(missing).toMatchObject({ code: 'not-found' });
      expect(missing.message).toBe('/no/such/dir is not there (any more): listing it failed.');
      const relative = await rejection(
        client.services.files.list({ nodeId, containerId: box, path: 'etc' }),
      );
      expect(relative.code).toBe('invalid-argument');
      const gone = await rejection(
        client.services.files.download({ nodeId, containerId: box, path: '/data/nothing' }),
      );
      expect(gone.code).toBe('not-found');
    });

    it('downloads 100 MiB as the file itself, streamed, with a matching sha256', async () => {
      const [expected] = (await exec(box, 'sha256sum /data/big')).split(' ');
      const prepared = await client.services.files.download({
        nodeId,
        containerId: box,
        path: '/data/big',
      });
      expect(prepared).toMatchObject({
        state: 'waiting',
        fileName: 'big',
        method: 'tar',
        totalBytes: bigSize,
        url: `/files/download/${prepared.transferId}`,
      });
      expect(prepared.crictl).toContain(`crictl exec -i ${box} tar -chf - -C /data ./big`);
      const seen = statesOf(client, prepared.transferId);
      const download = await core.downloads(prepared.transferId);
      expect(download).toMatchObject({ fileName: 'big', contentType: 'application/octet-stream' });
      const { bytes, sha256 } = await drain(download!.body);
      expect(bytes).toBe(bigSize);
      expect(sha256).toBe(expected);
      await until(
        async () => (await transfer(prepared.transferId))?.state === 'done',
        'it is done',
      );
      const done = await transfer(prepared.transferId);
      expect(done).toMatchObject({ bytes: bigSize, checksum: 'match', sha256: expected });
      // Two phases: the bytes, then the check, before the body ended and the file was kept.
      expect(seen.states.filter((state) => state !== 'waiting')).toEqual([
        'running',
        'verifying',
        'done',
      ]);
      seen.dispose();
      expect(done!.bytesDoneAt).toBeLessThanOrEqual(done!.endedAt!);
      // Each address works once.
      expect(await core.downloads(prepared.transferId)).toBeUndefined();
      // The session monitor shows it as a transfer, with the file's bytes.
      expect(await sessionOf('download /data/big (tar)')).toMatchObject({
        kind: 'transfer',
        state: 'ended',
        target: { containerId: box },
        bytesIn: bigSize,
      });
    });

    it('checks every byte of a download whose reader is behind the container', async () => {
      // Small enough to sit whole in the body's buffers: the container's side ends before
      // anything is read, so the checksum and the count must not wait on the reader.
      const size = 400 * 1024;
      await exec(box, `head -c ${size} /dev/urandom > /data/unread`);
      const [expected] = (await exec(box, 'sha256sum /data/unread')).split(' ');
      const prepared = await client.services.files.download({
        nodeId,
        containerId: box,
        path: '/data/unread',
      });
      const download = await core.downloads(prepared.transferId);
      // Ended, not merely past its bytes: the check (verifying) comes between.
      await until(async () => {
        const state = (await transfer(prepared.transferId))?.state;
        return state === 'done' || state === 'failed' || state === 'cancelled';
      }, 'the container side is done');
      expect(await transfer(prepared.transferId)).toMatchObject({
        state: 'done',
        bytes: size,
        checksum: 'match',
        sha256: expected,
      });
      expect(await drain(download!.body)).toEqual({ bytes: size, sha256: expected });
    });

    it('downloads a directory tree as a tar: odd names and the symlink as a symlink', async () => {
      const prepared = await client.services.files.download({
        nodeId,
        containerId: box,
        path: '/data/tree',
      });
      expect(prepared.fileName).toBe('tree.tar');
      const download = await core.downloads(prepared.transferId);
      const entries = await tarEntries(download!.body);
      expect(entries.get('./tree/with space.txt')).toMatchObject({ type: 'file', text: 'hello' });
      expect(entries.get('./tree/new\nline')).toMatchObject({ text: 'line' });
      expect(entries.get('./tree/sub dir/deep.txt')).toMatchObject({ text: 'deep' });
      expect(entries.get('./tree/link')).toMatchObject({ type: 'symlink', link: 'with space.txt' });
      await until(
        async () => (await transfer(prepared.transferId))?.state === 'done',
        'it is done',
      );
    });

    it('uploads 100 MiB and a nested file by tar, with matching sha256s', async () => {
      const chunk = new Uint8Array(filesLimits.maxChunkBytes);
      const hash = createHash('sha256');
      const started = await client.services.files.upload({
        nodeId,
        containerId: box,
        directory: '/data',
        files: [
          { path: 'up/big.bin', size: bigSize },
          { path: 'up/sub/small file.txt', size: 5 },
        ],
      });
      expect(started).toMatchObject({ state: 'running', method: 'tar', totalBytes: bigSize + 5 });
      const seen = statesOf(client, started.transferId);
      // As the renderer sends them: a few writes on their way at once, applied in order
      // (each is copied as it is sent, so the chunk can be refilled meanwhile).
      const sending = new Set<Promise<void>>();
      for (let sent = 0; sent < bigSize; sent += chunk.byteLength) {
        for (let i = 0; i < chunk.length; i += 4096) chunk[i] = (sent / 4096 + i) & 0xff;
        hash.update(chunk);
        const write = client.services.files
          .write(started.transferId, chunk)
          .finally(() => sending.delete(write));
        sending.add(write);
        if (sending.size >= filesLimits.writesInFlight) await Promise.race(sending);
      }
      await Promise.all(sending);
      await client.services.files.write(started.transferId, new TextEncoder().encode('small'));
      const done = await client.services.files.finish(started.transferId);
      expect(done).toMatchObject({ state: 'done', bytes: bigSize + 5, checksum: 'match' });
      // Unpacked (the bytes phase), then checked in the container before being moved in.
      await until(() => Promise.resolve(seen.states.includes('done')), 'the list shows it done');
      expect(seen.states).toEqual(['running', 'verifying', 'done']);
      seen.dispose();
      expect(done.bytesDoneAt).toBeLessThanOrEqual(done.endedAt!);
      const [theirs] = (await exec(box, 'sha256sum /data/up/big.bin')).split(' ');
      expect(theirs).toBe(hash.digest('hex'));
      expect(await exec(box, 'cat "/data/up/sub/small file.txt"')).toBe('small');
      // Nothing of the staging directory is left.
      expect(await exec(box, 'ls -a /data')).not.toContain('.porthole-upload');
      expect(await sessionOf('upload 2 files to /data (tar)')).toMatchObject({
        kind: 'transfer',
        state: 'ended',
        bytesOut: bigSize + 5,
      });
    });

    it('keeps nothing of an upload whose sha256 in the container is not what was sent', async () => {
      // The script as the core runs it, fed a tar whose sums entry disagrees with a file:
      // the core's own sums always agree, so this is the only way to make them differ.
      await exec(box, 'mkdir -p /data/mismatch && printf old > /data/mismatch/a.txt');
      const access = { tar: true, paths: { tar: '', cat: '', sha256sum: 'sha256sum' } };
      const files = [
        { path: 'a.txt', size: 3 },
        { path: 'b.txt', size: 3 },
      ];
      const tar = pack();
      tar.entry({ name: `${filesPrefix}a.txt` }, 'new');
      tar.entry({ name: `${filesPrefix}b.txt` }, 'new');
      const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
      tar.entry(
        { name: sumsEntry },
        sumsText(['a.txt', 'b.txt'], [sha('new'), sha('not what arrived')]),
      );
      tar.finalize();
      const remote = await openRemoteCommand({
        cri,
        kind: 'exec',
        containerId: box,
        cmd: uploadCommand(access as Access, '/data/mismatch', files, true),
        tty: false,
        stdin: true,
        stdout: true,
        stderr: true,
      });
      const said = new OutputTail(remote.stdout);
      const stderr = new OutputTail(remote.stderr);
      tar.pipe(remote.stdin!);
      const result = await remote.result;
      remote.dispose();
      expect(result.exitCode).toBe(mismatchExitCode);
      expect(said.text).toBe('ready\nunpacked\n');
      expect(stderr.text).toBe('b.txt: its sha256 is not what was sent\n');
      // Neither file was moved in (a.txt matched, but the upload is one), nothing staged.
      expect(await exec(box, 'ls -a /data/mismatch')).toBe('.\n..\na.txt\n');
      expect(await exec(box, 'cat /data/mismatch/a.txt')).toBe('old');
    });

    it('keeps nothing of a cat upload cancelled after its last byte, or aimed at a directory', async () => {
      await exec(noTar, 'rm -rf /tmp/cats && mkdir -p /tmp/cats/taken');
      // Every byte sent, then cancelled before finish: the part the script left is removed.
      const cut = await sendText(noTar, '/tmp/cats', 'cut.txt', 'cut');
      expect(cut.method).toBe('cat');
      await client.services.files.cancel(cut.transferId);
      expect(await transfer(cut.transferId)).toMatchObject({ state: 'cancelled' });
      await until(
        async () => (await exec(noTar, 'ls -a /tmp/cats')) === '.\n..\ntaken\n',
        'nothing of the cancelled upload is left',
      );
      // A file whose name is a directory there: refused in words, the directory untouched.
      const onto = await sendText(noTar, '/tmp/cats', 'taken', 'file');
      const refused = await rejection(client.services.files.finish(onto.transferId));
      expect(refused.message).toContain('a directory where a file was to go');
      expect(refused.detail).toContain('/tmp/cats/taken: is a directory');
      expect(await exec(noTar, 'ls -a /tmp/cats /tmp/cats/taken')).toBe(
        '/tmp/cats:\n.\n..\ntaken\n\n/tmp/cats/taken:\n.\n..\n',
      );
    });

    it('checks every file of an upload of 150, odd names and all, by the sums in its tar', async () => {
      // More names than a command line would comfortably hold, and names the sums line must
      // carry through read and printf unchanged: space, newline, backslash, %, a leading -.
      const odd = ['a b.txt', 'new\nline', 'back\\slash', '100%', '-dash', 'ünï', 'trail\n'];
      const paths = [
        ...odd.map((name) => `many/${name}`),
        ...Array.from({ length: 143 }, (_, index) => `many/d${index % 7}/file-${index}.txt`),
      ];
      const body = (path: string): string => `${path}\n`;
      const started = await client.services.files.upload({
        nodeId,
        containerId: box,
        directory: '/data',
        files: paths.map((path) => ({ path, size: Buffer.byteLength(body(path)) })),
      });
      for (const path of paths) {
        await client.services.files.write(started.transferId, new TextEncoder().encode(body(path)));
      }
      const done = await client.services.files.finish(started.transferId);
      expect(done).toMatchObject({ state: 'done', checksum: 'match', bytes: started.totalBytes });
      // A character per file: two of the names hold newlines, so lines would not count them.
      expect(await exec(box, 'find /data/many -type f -exec printf x \\; | wc -c')).toBe('150\n');
      for (const name of odd) {
        expect(await exec(box, `cat '/data/many/${name.replace(/'/g, "'\\''")}'`)).toBe(
          body(`many/${name}`),
        );
      }
    });

    it('leaves nothing half-written when an upload is cancelled, or fails', async () => {
      const started = await client.services.files.upload({
        nodeId,
        containerId: box,
        directory: '/data',
        files: [{ path: 'half.bin', size: 4 * MiB }],
      });
      await client.services.files.write(
        started.transferId,
        new Uint8Array(filesLimits.maxChunkBytes),
      );
      await client.services.files.cancel(started.transferId);
      expect(await transfer(started.transferId)).toMatchObject({ state: 'cancelled' });
      await until(
        async () => !(await exec(box, 'ls -a /data')).includes('.porthole-upload'),
        'the staging directory is removed',
      );
      expect(await exec(box, 'ls -a /data')).not.toContain('half.bin');

      const missing = await client.services.files.upload({
        nodeId,
        containerId: box,
        directory: '/no/such/place',
        files: [{ path: 'x.txt', size: 1 }],
      });
      await client.services.files
        .write(missing.transferId, new Uint8Array([120]))
        .catch(() => undefined);
      const failed = await rejection(client.services.files.finish(missing.transferId));
      expect(failed.code).toBe('not-found');

      const bad = await rejection(
        client.services.files.upload({
          nodeId,
          containerId: box,
          directory: '/data',
          files: [{ path: '../escape', size: 1 }],
        }),
      );
      expect(bad.code).toBe('invalid-argument');
    });

    it('falls back to cat for a single file where there is no tar', async () => {
      const listing = await client.services.files.list({
        nodeId,
        containerId: noTar,
        path: '/tmp',
      });
      expect(listing.access).toMatchObject({ via: 'direct', tar: false });
      expect(listing.access.note).toContain('has no tar');
      const prepared = await client.services.files.download({
        nodeId,
        containerId: noTar,
        path: '/tmp/note.txt',
      });
      expect(prepared.method).toBe('cat');
      const download = await core.downloads(prepared.transferId);
      const { sha256 } = await drain(download!.body);
      expect(sha256).toBe(sha256Of(new TextEncoder().encode('no tar here')));

      const up = await sendText(noTar, '/tmp', 'by cat.txt', 'cat');
      expect(up.method).toBe('cat');
      expect(await client.services.files.finish(up.transferId)).toMatchObject({
        state: 'done',
        checksum: 'match',
      });
      expect(await exec(noTar, 'cat "/tmp/by cat.txt"')).toBe('cat');
      expect(await exec(noTar, 'ls -a /tmp')).not.toContain('porthole-part');

      const directory = await rejection(
        client.services.files.download({ nodeId, containerId: noTar, path: '/tmp' }),
      );
      expect(directory.message).toContain('has no tar');
    });

    it('reaches a container with no shell through its debug container, at /proc/1/root', async () => {
      const refused = await rejection(
        client.services.files.list({ nodeId, containerId: noShell, path: '/' }),
      );
      expect(refused).toMatchObject({ code: 'failed-precondition', step: 'no-shell' });
      const debug = await client.services.debug.start({
        nodeId,
        targetId: noShell,
        image: LAB_IMAGES.busybox,
        keep: true,
      });
      try {
        const listing = await client.services.files.list({
          nodeId,
          containerId: noShell,
          path: '/',
        });
        expect(listing.access).toMatchObject({
          via: 'debug',
          debugContainerId: debug.container.containerId,
          tar: true,
        });
        expect(listing.access.note).toContain('/proc/1/root');
        expect(listing.entries.map((entry) => entry.name)).toContain('pause');
        const prepared = await client.services.files.download({
          nodeId,
          containerId: noShell,
          path: '/pause',
        });
        expect(prepared.via).toBe('debug');
        const download = await core.downloads(prepared.transferId);
        const chunks: Buffer[] = [];
        for await (const chunk of download!.body as AsyncIterable<Buffer>) chunks.push(chunk);
        expect(Buffer.concat(chunks).subarray(1, 4).toString()).toBe('ELF');
      } finally {
        await client.services.debug.remove(nodeId, debug.container.containerId);
      }
    });
  },
);
