/**
 * The files bench: 100 MiB of random bytes each way between this machine and a lab
 * container, through Porthole's files feature and through crictl, in the same run,
 * interleaved (MB = 10^6 bytes), median of 3:
 *
 *   files_download_mbps     files.download over the RPC (a structured-clone port, as
 *                           Electron's), then the transfer's body (what the app protocol
 *                           streams to the page) written to a local file: the call to the
 *                           file closed. The body ends only once the container's sha256sum
 *                           agrees, so the check is inside the figure.
 *   files_upload_mbps       files.upload, the file read in 512 KiB pieces each sent with
 *                           files.write and awaited (as the renderer does), then
 *                           files.finish: the call to its answer, which again includes
 *                           the container's sha256sum.
 *   vs_crictl_tar_download  Porthole / `crictl exec -i <ctr> tar -chf - -C /data ./big`
 *                           with stdout to a local file (spawn to exit), the command
 *                           Porthole's "Copy as crictl" gives
 *   vs_crictl_tar_upload    Porthole / `crictl exec -i <ctr> tar -xf - -C <dir>` with a
 *                           local tar of the file on stdin (spawn to exit)
 *
 * Every run is checked outside its timing: the sha256 of the local file (for crictl, of
 * the file inside the tar it wrote) and of the uploaded file in the container. crictl's
 * pipe checks nothing, so the ratios count Porthole's checksum against it.
 *
 * Targets (issue 18): files ≥ 0.9× the crictl pipe. Without a crictl (crictl.ts's
 * findCrictl) only the files_* figures are given.
 *
 *   npm run bench -- --only files        (or: tsx scripts/bench/files.ts [--runtime 1.6])
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extract } from 'tar-stream';
import { CriClient } from '../../electron/core/base/cri';
import { createCore } from '../../electron/core/composition';
import { filesLimits } from '../../shared/model';
import { createClient, createMessagePortPair, serve } from '../../shared/rpc';
import {
  busyboxContainerConfig,
  createLabContainer,
  labRuntimes,
  matchesRuntime,
  podSandboxConfig,
  removeLabelledPods,
} from '../../test/support/lab';
import { crictlCommand, exited, findCrictl, interleaved, ratio } from './crictl';
import { mbps, median, round } from './stats';
import type { BenchContext, BenchFigure, BenchModule } from './types';

const MiB = 1024 * 1024;
const BIG = 100 * MiB;
const REPEATS = 3;
const label = { 'porthole-bench': 'files' };

export const filesBenchTargets = { vs_crictl_tar_download: 0.9, vs_crictl_tar_upload: 0.9 };

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** The sha256 of the one file in a tar, and its size. */
async function sha256InTar(path: string): Promise<{ sha256: string; bytes: number }> {
  const unpack = extract();
  const reading = pipeline(createReadStream(path), unpack);
  const hash = createHash('sha256');
  let bytes = 0;
  let files = 0;
  for await (const entry of unpack) {
    if (entry.header.type === 'file') files += 1;
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  }
  await reading;
  if (files !== 1) throw new Error(`crictl's tar holds ${files} files, not one`);
  return { sha256: hash.digest('hex'), bytes };
}

/** A process run to its end with stdin and stdout on files (`<` and `>`): its wall time. */
async function piped(
  argv: readonly string[],
  files: { readonly stdin?: string; readonly stdout?: string },
): Promise<number> {
  const [command, ...args] = argv as [string, ...string[]];
  const stdin = files.stdin !== undefined ? openSync(files.stdin, 'r') : 'ignore';
  const stdout = files.stdout !== undefined ? openSync(files.stdout, 'w') : 'ignore';
  try {
    const started = performance.now();
    const child = spawn(command, args, { stdio: [stdin, stdout, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await exited(child);
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`${args.slice(4).join(' ')}: exit ${code}: ${stderr.trim()}`);
    return ms;
  } finally {
    if (typeof stdin === 'number') closeSync(stdin);
    if (typeof stdout === 'number') closeSync(stdout);
  }
}

export async function runFilesBench(context: BenchContext): Promise<BenchFigure[]> {
  const { runtime, log } = context;
  const dir = mkdtempSync(join(tmpdir(), 'porthole-bench-files-'));
  const cri = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 60_000 });
  const cleanups: (() => Promise<void> | void)[] = [
    () => rmSync(dir, { recursive: true, force: true }),
    () => cri.dispose(),
    () => removeLabelledPods(cri, label),
  ];
  try {
    await removeLabelledPods(cri, label);
    const sandbox = podSandboxConfig('bench-files', { runtime, labels: label });
    const podId = await cri.runPod(sandbox);
    const containerId = await createLabContainer(
      cri,
      podId,
      busyboxContainerConfig('bench-files', ['sleep', '3600'], { labels: label }),
      sandbox,
    );
    await cri.startContainer(containerId);
    const sh = async (script: string): Promise<string> => {
      const result = await cri.execSync(containerId, ['sh', '-c', script], 120);
      if (result.exitCode !== 0) {
        throw new Error(
          `${script}: exit ${result.exitCode}: ${Buffer.from(result.stderr).toString()}`,
        );
      }
      return Buffer.from(result.stdout).toString('utf8');
    };
    const sha256In = async (path: string): Promise<string> =>
      (await sh(`sha256sum ${path}`)).split(' ')[0] ?? '';
    await sh(`mkdir -p /data/porthole /data/crictl && head -c ${BIG} /dev/urandom > /data/big`);
    const downloadSha = await sha256In('/data/big');

    // What goes up: a local file of random bytes, and the same file in a tar for crictl.
    const localBig = join(dir, 'big.bin');
    const random = randomBytes(BIG);
    writeFileSync(localBig, random);
    const uploadSha = createHash('sha256').update(random).digest('hex');
    const localTar = join(dir, 'big.tar');
    await piped(['tar', '-cf', localTar, '-C', dir, 'big.bin'], {});

    const core = createCore({
      configDir: join(dir, 'config'),
      env: { CONTAINER_RUNTIME_ENDPOINT: runtime.endpoint, CRI_CONFIG_FILE: join(dir, 'none') },
      logFile: false,
    });
    cleanups.push(() => core.dispose());
    // The renderer's way in: the contract over a port, bytes carried as they are.
    const [clientPort, serverPort] = createMessagePortPair({ clone: 'structured' });
    const server = serve(serverPort, core.services, core.events);
    const client = createClient(clientPort);
    cleanups.push(() => {
      client.dispose();
      server.dispose();
    });
    const nodeId = `local:${runtime.endpoint}`;
    await client.services.nodes.connect(nodeId);
    const files = client.services.files;

    const portholeDownload = async (): Promise<number> => {
      const local = join(dir, 'down.bin');
      const started = performance.now();
      const prepared = await files.download({ nodeId, containerId, path: '/data/big' });
      const download = await core.downloads(prepared.transferId);
      if (download === undefined) throw new Error('the prepared download is not there');
      let lastByte = started;
      download.body.on('data', () => (lastByte = performance.now()));
      await pipeline(download.body, createWriteStream(local));
      const ms = performance.now() - started;
      // Checked afterwards, as crictl's file is: the page hashes nothing in the core's thread.
      const sha256 = await sha256OfFile(local);
      if (sha256 !== downloadSha) throw new Error(`download: sha256 ${sha256}, not ${downloadSha}`);
      log(
        `porthole download: last byte at ${round(lastByte - started)} ms, checked at ${round(ms)} ms`,
      );
      rmSync(local);
      return mbps(BIG, ms);
    };

    const portholeUpload = async (): Promise<number> => {
      const started = performance.now();
      const transfer = await files.upload({
        nodeId,
        containerId,
        directory: '/data/porthole',
        files: [{ path: 'big.bin', size: BIG }],
      });
      const handle = await open(localBig, 'r');
      try {
        for (let at = 0; at < BIG; at += filesLimits.maxChunkBytes) {
          // A new buffer per piece, as File.slice().arrayBuffer() gives the renderer.
          const piece = new Uint8Array(Math.min(filesLimits.maxChunkBytes, BIG - at));
          const { bytesRead } = await handle.read(piece, 0, piece.length, at);
          if (bytesRead !== piece.length) throw new Error(`read ${bytesRead} at ${at}`);
          await files.write(transfer.transferId, piece);
        }
      } finally {
        await handle.close();
      }
      const lastByte = performance.now();
      const done = await files.finish(transfer.transferId);
      const ms = performance.now() - started;
      if (done.state !== 'done' || done.checksum !== 'match' || done.bytes !== BIG) {
        throw new Error(`upload: ${done.state}, ${done.checksum}, ${done.bytes} bytes`);
      }
      const theirs = await sha256In('/data/porthole/big.bin');
      if (theirs !== uploadSha) throw new Error(`upload: sha256 ${theirs}, not ${uploadSha}`);
      log(
        `porthole upload: last write at ${round(lastByte - started)} ms, finished at ${round(ms)} ms`,
      );
      await sh('rm -f /data/porthole/big.bin');
      return mbps(BIG, ms);
    };

    const crictlPath = findCrictl();
    const figures: BenchFigure[] = [];
    const figure = (name: string, value: number, unit: string): void => {
      const limit = (filesBenchTargets as Record<string, number | undefined>)[name];
      figures.push({
        name,
        value,
        unit,
        ...(limit !== undefined && { target: { op: '>=' as const, value: limit } }),
      });
    };
    const rates = (values: readonly number[]): string => values.map((v) => round(v, 1)).join(', ');

    if (crictlPath === undefined) {
      log(
        'no crictl found (--crictl PATH, PATH, ../shared/bin/crictl): the vs_crictl keys are skipped',
      );
      const down: number[] = [];
      const up: number[] = [];
      for (let i = 0; i < REPEATS; i += 1) down.push(await portholeDownload());
      for (let i = 0; i < REPEATS; i += 1) up.push(await portholeUpload());
      figure('files_download_mbps', round(median(down), 1), 'MB/s');
      figure('files_upload_mbps', round(median(up), 1), 'MB/s');
      return figures;
    }
    const crictl = crictlCommand(crictlPath, runtime);
    log(`crictl ${crictlPath} against ${runtime.id}`);

    const crictlDownload = async (): Promise<number> => {
      const local = join(dir, 'down.tar');
      const ms = await piped(
        [...crictl, 'exec', '-i', containerId, 'tar', '-chf', '-', '-C', '/data', './big'],
        { stdout: local },
      );
      const { sha256, bytes } = await sha256InTar(local);
      if (sha256 !== downloadSha || bytes !== BIG) {
        throw new Error(`crictl download: ${bytes} bytes, sha256 ${sha256}, not ${downloadSha}`);
      }
      rmSync(local);
      return mbps(BIG, ms);
    };

    const crictlUpload = async (): Promise<number> => {
      const ms = await piped(
        [...crictl, 'exec', '-i', containerId, 'tar', '-xf', '-', '-C', '/data/crictl'],
        { stdin: localTar },
      );
      const theirs = await sha256In('/data/crictl/big.bin');
      if (theirs !== uploadSha)
        throw new Error(`crictl upload: sha256 ${theirs}, not ${uploadSha}`);
      await sh('rm -f /data/crictl/big.bin');
      return mbps(BIG, ms);
    };

    const down = await interleaved(REPEATS, portholeDownload, crictlDownload);
    log(`download MB/s: porthole ${rates(down.porthole)}; crictl tar ${rates(down.crictl)}`);
    const up = await interleaved(REPEATS, portholeUpload, crictlUpload);
    log(`upload MB/s: porthole ${rates(up.porthole)}; crictl tar ${rates(up.crictl)}`);
    figure('files_download_mbps', round(median(down.porthole), 1), 'MB/s');
    figure('files_upload_mbps', round(median(up.porthole), 1), 'MB/s');
    figure('vs_crictl_tar_download', ratio(median(down.porthole), median(down.crictl)), '×');
    figure('vs_crictl_tar_upload', ratio(median(up.porthole), median(up.crictl)), '×');
    return figures;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

export const filesBench: BenchModule = { name: 'files', run: runFilesBench };

// `tsx scripts/bench/files.ts [--runtime 1.6]`
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const index = process.argv.indexOf('--runtime');
  const wanted = index >= 0 ? process.argv[index + 1] : '2';
  const runtime = labRuntimes().find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) throw new Error(`No lab runtime ${wanted}.`);
  const figures = await runFilesBench({ runtime, log: (line) => console.error(line) });
  console.log(JSON.stringify(figures, null, 2));
}
