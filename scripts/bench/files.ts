/**
 * The files bench: 100 MiB of random bytes each way between this machine and a lab
 * container, through Porthole's files feature and through crictl, in the same run,
 * interleaved (MB = 10^6 bytes), median of 3. A checked transfer has two phases (see
 * TransferState): its bytes, then the container's sha256sum agreeing before it is kept.
 * Both are given: the rate to the bytes being complete, and the time to verified.
 *
 *   files_download_mbps     files.download over the RPC (a structured-clone port, as
 *                           Electron's), then its address fetched from the browser-mode
 *                           host by curl, in a process of its own as a browser saves a
 *                           download, into a local `.part` file: the call to that file
 *                           holding every byte (its size looked at every 5 ms). Written
 *                           in this process instead, the file's writes took the core's
 *                           thread from the stream: the same exec counted without them
 *                           took half the time.
 *   files_download_verified_ms  the same call to curl's exit: the body ended (the
 *                           container's sum agreed) and the `.part` file renamed.
 *   files_upload_mbps       files.upload, the file read in 512 KiB pieces sent with
 *                           files.write, a few in flight, from a worker thread over a
 *                           MessagePort (as the renderer does, files-sender.ts), then
 *                           files.finish: the call to every byte unpacked in the
 *                           container, in its hidden directory (the transfer's
 *                           bytesDoneAt, when it turns `verifying`).
 *   files_upload_verified_ms    the same call to files.finish's answer: the sums agreed
 *                           in the container and the file moved into place.
 *   vs_crictl_tar_download  Porthole's bytes complete / `crictl exec -i <ctr> tar -chf - -C
 *                           /data ./big` with stdout to a local file (spawn to exit), the
 *                           command Porthole's "Copy as crictl" gives
 *   vs_crictl_tar_upload    Porthole's bytes complete / `crictl exec -i <ctr> tar -xf - -C
 *                           <dir>` with a local tar of the file on stdin (spawn to exit)
 *   vs_crictl_tar_download_verified, vs_crictl_tar_upload_verified
 *                           the same with Porthole's verified time: crictl's pipe checks
 *                           nothing, so these count the check against it
 *   files_1gib_rss_growth_mb    the process's peak RSS (sampled every 20 ms) above its RSS
 *                           before, over a 1 GiB download and a 1 GiB upload through the
 *                           core, each to verified; the larger of the two (the process
 *                           holds the core, the host and the upload's sender thread, which
 *                           sends one piece again and again; curl is apart)
 *
 * Every run is checked outside its timing: the sha256 of the local file (for crictl, of
 * the file inside the tar it wrote) and of the uploaded file in the container.
 *
 * Targets (issue 18): files ≥ 0.9× the crictl pipe, RSS growth < 64 MiB for 1 GiB.
 * Without a crictl (crictl.ts's findCrictl) only the files_* figures are given. Needs curl.
 *
 *   npm run bench -- --only files        (or: tsx scripts/bench/files.ts [--runtime 1.6])
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MessageChannel, Worker } from 'node:worker_threads';
import { extract } from 'tar-stream';
import { CriClient } from '../../electron/core/base/cri';
import { createCore } from '../../electron/core/composition';
import { startHost } from '../../electron/core/host';
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
import { workerPort, type SenderResult, type SenderUpload } from './files-sender';
import { crictlCommand, exited, findCrictl, interleaved, ratio, runProcess } from './crictl';
import { mbps, median, round, sampleRss } from './stats';
import type { BenchContext, BenchFigure, BenchModule, BenchTarget } from './types';

const MiB = 1024 * 1024;
const BIG = 100 * MiB;
const GIB = 1024 * MiB;
const REPEATS = 3;
const label = { 'porthole-bench': 'files' };

export const filesBenchTargets: Readonly<Record<string, BenchTarget>> = {
  vs_crictl_tar_download: { op: '>=', value: 0.9 },
  vs_crictl_tar_upload: { op: '>=', value: 0.9 },
  files_1gib_rss_growth_mb: { op: '<=', value: 64 },
};

/** One transfer's two phases: to its bytes complete, and to verified (and kept). */
interface Timed {
  readonly bytesMs: number;
  readonly verifiedMs: number;
  /** A download's local file. */
  readonly local?: string;
}

/** The process's peak RSS above its RSS before, over `run`, sampled every 20 ms, in MiB. */
async function peakRssGrowthMb(run: () => Promise<void>): Promise<number> {
  const rss = sampleRss();
  try {
    await run();
  } finally {
    rss.stop();
  }
  return (rss.peak - rss.start) / MiB;
}

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

/**
 * `url` fetched by curl into `file`, as a browser saves a download; rejects unless the
 * body ended whole. The login cookie goes in on curl's stdin, not its command line.
 */
async function fetched(url: string, cookie: string, file: string): Promise<void> {
  await runProcess(
    'curl',
    ['-sS', '--fail', '-K', '-', '-o', file, url],
    Buffer.from(`header = "Cookie: ${cookie}"\n`),
  );
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

    // Downloads as the page fetches them: from the browser-mode host, over HTTP. The host
    // wants an app to serve; no page is loaded here, so an empty one does.
    const staticDir = join(dir, 'static');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>files bench</title>');
    const host = await startHost({
      staticDir,
      services: core.services,
      events: core.events,
      warn: () => undefined,
      downloads: core.downloads,
    });
    cleanups.push(() => host.close());
    /** A download fetched by curl into a local `.part` file, renamed once the body ends. */
    const portholeDownload = async (path: string, size: number): Promise<Timed> => {
      const local = join(dir, 'down.bin');
      const started = performance.now();
      const prepared = await files.download({ nodeId, containerId, path });
      // Bytes complete: the part file holds every byte (looked at every 5 ms, and once more
      // as curl ends, for bytes whose body ended within the last 5 ms).
      let bytesAt: number | undefined;
      const look = (): void => {
        if (bytesAt !== undefined) return;
        const held = statSync(`${local}.part`, { throwIfNoEntry: false })?.size ?? 0;
        if (held >= size) bytesAt = performance.now();
      };
      const watch = setInterval(look, 5);
      try {
        await fetched(`${host.origin}${prepared.url}`, host.loginCookie, `${local}.part`);
        look();
      } finally {
        clearInterval(watch);
      }
      renameSync(`${local}.part`, local);
      const verifiedMs = performance.now() - started;
      if (bytesAt === undefined) throw new Error('download: the bytes were never all there');
      const bytesMs = bytesAt - started;
      log(
        `porthole download: bytes complete at ${round(bytesMs)} ms, verified at ${round(verifiedMs)} ms`,
      );
      return { bytesMs, verifiedMs, local };
    };

    const portholeBigDownload = async (): Promise<Timed> => {
      const timed = await portholeDownload('/data/big', BIG);
      // Checked afterwards, as crictl's file is: the page hashes nothing in the core's thread.
      const sha256 = await sha256OfFile(timed.local!);
      if (sha256 !== downloadSha) throw new Error(`download: sha256 ${sha256}, not ${downloadSha}`);
      rmSync(timed.local!);
      return timed;
    };

    // Uploads come from a worker thread, as from the renderer: its reads and the copy of
    // each write on its way are not on the core's thread (files-sender.ts).
    const channel = new MessageChannel();
    const uploads = serve(workerPort(channel.port1), core.services, core.events);
    const sender = new Worker(new URL('./files-sender.ts', import.meta.url), {
      workerData: { port: channel.port2 },
      transferList: [channel.port2],
    });
    cleanups.push(async () => {
      uploads.dispose();
      channel.port1.close();
      await sender.terminate();
    });
    let sent = 0;
    const answers = new Map<number, (answer: { result?: SenderResult; error?: string }) => void>();
    sender.on('message', (answer: { id: number; result?: SenderResult; error?: string }) => {
      answers.get(answer.id)?.(answer);
      answers.delete(answer.id);
    });
    // A worker that dies answers nothing more: what waits on it fails instead of hanging.
    sender.on('error', (error) => {
      for (const answer of answers.values()) answer({ error: `the sender died: ${String(error)}` });
      answers.clear();
    });

    /** An upload of `size` bytes into /data/porthole/big.bin, sent by the worker. */
    const portholeUpload = async (
      upload: Pick<SenderUpload, 'size' | 'file' | 'pattern'>,
    ): Promise<Timed> => {
      const id = (sent += 1);
      const answer = await new Promise<{ result?: SenderResult; error?: string }>((resolve) => {
        answers.set(id, resolve);
        sender.postMessage({
          id,
          upload: { nodeId, containerId, directory: '/data/porthole', name: 'big.bin', ...upload },
        });
      });
      if (answer.result === undefined) throw new Error(`upload: ${answer.error ?? '?'}`);
      const { startedWall, verifiedMs, done } = answer.result;
      if (done.state !== 'done' || done.checksum !== 'match' || done.bytes !== upload.size) {
        throw new Error(`upload: ${done.state}, ${done.checksum}, ${done.bytes} bytes`);
      }
      if (done.bytesDoneAt === undefined) throw new Error('upload: no bytes phase');
      const bytesMs = done.bytesDoneAt - startedWall;
      log(
        `porthole upload: bytes complete at ${round(bytesMs)} ms, verified at ${round(verifiedMs)} ms`,
      );
      return { bytesMs, verifiedMs };
    };

    const portholeBigUpload = async (): Promise<Timed> => {
      const timed = await portholeUpload({ size: BIG, file: localBig });
      const theirs = await sha256In('/data/porthole/big.bin');
      if (theirs !== uploadSha) throw new Error(`upload: sha256 ${theirs}, not ${uploadSha}`);
      await sh('rm -f /data/porthole/big.bin');
      return timed;
    };

    const crictlPath = findCrictl();
    const figures: BenchFigure[] = [];
    const figure = (name: string, value: number, unit: string): void => {
      const limit = (filesBenchTargets as Record<string, BenchTarget | undefined>)[name];
      figures.push({ name, value, unit, ...(limit !== undefined && { target: limit }) });
    };
    const rates = (values: readonly number[]): string => values.map((v) => round(v, 1)).join(', ');
    const phases = (name: string, runs: readonly Timed[]): void => {
      figure(
        `files_${name}_mbps`,
        round(median(runs.map((run) => mbps(BIG, run.bytesMs))), 1),
        'MB/s',
      );
      figure(
        `files_${name}_verified_ms`,
        round(median(runs.map((run) => run.verifiedMs)), 0),
        'ms',
      );
    };
    const rssGrowth = async (): Promise<void> => {
      await sh(`head -c ${GIB} /dev/zero > /data/gig`);
      const down = await peakRssGrowthMb(async () => {
        const timed = await portholeDownload('/data/gig', GIB);
        rmSync(timed.local!);
      });
      await sh('rm -f /data/gig');
      // In the app the page's pieces are in its own process; the worker is in this one, so
      // it sends one piece again and again (each write is copied as it is sent).
      const pattern = randomBytes(filesLimits.maxChunkBytes);
      const up = await peakRssGrowthMb(async () => {
        await portholeUpload({ size: GIB, pattern });
      });
      await sh('rm -f /data/porthole/big.bin');
      log(`1 GiB RSS growth: download ${round(down, 1)} MiB, upload ${round(up, 1)} MiB`);
      figure('files_1gib_rss_growth_mb', round(Math.max(down, up), 1), 'MiB');
    };

    if (crictlPath === undefined) {
      log(
        'no crictl found (--crictl PATH, PATH, ../shared/bin/crictl): the vs_crictl keys are skipped',
      );
      const down: Timed[] = [];
      const up: Timed[] = [];
      for (let i = 0; i < REPEATS; i += 1) down.push(await portholeBigDownload());
      for (let i = 0; i < REPEATS; i += 1) up.push(await portholeBigUpload());
      phases('download', down);
      phases('upload', up);
      await rssGrowth();
      return figures;
    }
    const crictl = crictlCommand(crictlPath, runtime);
    log(`crictl ${crictlPath} against ${runtime.id}`);

    const crictlDownload = async (): Promise<Timed> => {
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
      return { bytesMs: ms, verifiedMs: ms };
    };

    const crictlUpload = async (): Promise<Timed> => {
      const ms = await piped(
        [...crictl, 'exec', '-i', containerId, 'tar', '-xf', '-', '-C', '/data/crictl'],
        { stdin: localTar },
      );
      const theirs = await sha256In('/data/crictl/big.bin');
      if (theirs !== uploadSha)
        throw new Error(`crictl upload: sha256 ${theirs}, not ${uploadSha}`);
      await sh('rm -f /data/crictl/big.bin');
      return { bytesMs: ms, verifiedMs: ms };
    };

    const compare = (name: string, runs: { porthole: Timed[]; crictl: Timed[] }): void => {
      const rate = (list: readonly Timed[], phase: 'bytesMs' | 'verifiedMs'): number[] =>
        list.map((run) => mbps(BIG, run[phase]));
      log(
        `${name} MB/s: porthole ${rates(rate(runs.porthole, 'bytesMs'))} (verified ${rates(rate(runs.porthole, 'verifiedMs'))}); crictl tar ${rates(rate(runs.crictl, 'bytesMs'))}`,
      );
      phases(name, runs.porthole);
      const crictlRate = median(rate(runs.crictl, 'bytesMs'));
      figure(
        `vs_crictl_tar_${name}`,
        ratio(median(rate(runs.porthole, 'bytesMs')), crictlRate),
        '×',
      );
      figure(
        `vs_crictl_tar_${name}_verified`,
        ratio(median(rate(runs.porthole, 'verifiedMs')), crictlRate),
        '×',
      );
    };
    compare('download', await interleaved(REPEATS, portholeBigDownload, crictlDownload));
    compare('upload', await interleaved(REPEATS, portholeBigUpload, crictlUpload));
    await rssGrowth();
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
