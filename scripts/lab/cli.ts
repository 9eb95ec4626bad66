/**
 * `npm run lab -- up|down|status [--runtime 1.6|2|cri-o|all] [--json] [--quiet]`
 *
 * A real lab for tests, benches and demos: containerd 1.6 (Debian 12), containerd 2.x
 * (Debian unstable, extracted) and CRI-O (the user's own build: it is not in Debian) side
 * by side, each with its CRI on a private socket, private root/state/CNI dirs, and locally
 * built busybox and pause images. See scripts/lab/README.md.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RUNC, CNI_BIN_DIR, SKOPEO, ensurePackages, requirements } from './apt';
import { type RuntimeBinaries, daemonName, runtimeSpec, selectRuntimes } from './config';
import {
  cleanupRuntime,
  describeRuntime,
  importImages,
  prepareRuntime,
  startContainerd,
} from './containerd';
import { withCri } from './cri';
import {
  type CrioPrograms,
  CRIO_DIR_VARIABLE,
  cleanupCrio,
  crioBinaries,
  crioImporter,
  crioVersion,
  describeCrio,
  findCrio,
  importCrioImages,
  prepareCrio,
  startCrio,
} from './crio';
import {
  isResponsive,
  removeCgroups,
  removePods,
  runningPid,
  runtimeCgroup,
  stopProcess,
} from './daemon';
import { LabError, errorMessage, exists } from './exec';
import { buildImages, pauseNeedsCompiler } from './images';
import { elapsedMs, progress, setQuiet } from './log';
import type { BuiltImage } from './oci';
import { type StopSignal, restartLabRuntime, runtimeBinaries } from './restart';
import {
  acquireLock,
  cacheDir,
  ensureLabDir,
  labDir,
  labFile,
  readLabFile,
  removeLabFile,
  runtimeDirs,
  writeLabFile,
} from './state';
import {
  LAB_CGROUP_ROOT,
  LAB_IMAGES,
  LAB_RUNTIME_IDS,
  type LabInfo,
  type LabRuntime,
  type LabRuntimeId,
  type LabSkippedRuntime,
} from './types';

const USAGE = `Usage: npm run lab -- <up|down|status|restart> [options]

  up       install what is missing, start the runtimes, import the images
  down     stop what the lab started and remove its directories
  status   show what is running; exits 1 if nothing is
  restart  kill the runtime (containerd or crio) and start it again on the same socket, as a crash would
           (pods keep running); prints the new pid and when its CRI answered

Options:
  --runtime 1.6|2|cri-o|all   which runtime(s), comma-separated (default: all: both
                        containerds, and CRI-O where a crio binary is found); also the ids
                        containerd-1.6, containerd-2, and crio
  --json                status: print the lab description as JSON
  --quiet               no progress lines
  --purge               down: also delete the cache (containerd 2.x download, built images)
  --signal KILL|TERM    restart: how the runtime is stopped (default KILL)

Environment: PORTHOLE_LAB_DIR (default /tmp/porthole-lab), XDG_CACHE_HOME (cache in
$XDG_CACHE_HOME/porthole-lab, default ~/.cache/porthole-lab), ${CRIO_DIR_VARIABLE} (the
directory of your crio, pinns and copyimg; else crio on PATH, else ../shared/bin/cri-o
beside the project).`;

type Command = 'up' | 'down' | 'status' | 'restart';

interface Args {
  command: Command;
  runtimes: LabRuntimeId[];
  /** Of `runtimes`, those `up` may leave out (with a line saying why). */
  optional: LabRuntimeId[];
  json: boolean;
  purge: boolean;
  signal: StopSignal;
}

function parse(argv: string[]): Args {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      runtime: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      purge: { type: 'boolean', default: false },
      signal: { type: 'string', default: 'KILL' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const [command, ...rest] = positionals;
  if (command !== 'up' && command !== 'down' && command !== 'status' && command !== 'restart') {
    throw new LabError(
      command === undefined ? 'No command given.' : `Unknown command "${command}".`,
    );
  }
  if (rest.length > 0) throw new LabError(`Unexpected argument "${rest.join(' ')}".`);
  const signal = `SIG${values.signal.toUpperCase().replace(/^SIG/, '')}`;
  if (signal !== 'SIGKILL' && signal !== 'SIGTERM') {
    throw new LabError(`Unknown signal "${values.signal}": use KILL or TERM.`);
  }
  setQuiet(values.quiet || values.json);
  const selection = selectRuntimes(values.runtime);
  return {
    command,
    runtimes: selection.ids,
    optional: selection.optional,
    json: values.json,
    purge: values.purge,
    signal,
  };
}

function sortRuntimes(runtimes: LabRuntime[]): LabRuntime[] {
  return [...runtimes].sort(
    (a, b) => LAB_RUNTIME_IDS.indexOf(a.id) - LAB_RUNTIME_IDS.indexOf(b.id),
  );
}

function labInfo(runtimes: LabRuntime[], skipped: LabSkippedRuntime[] = []): LabInfo {
  return {
    labDir: labDir(),
    runtimes: sortRuntimes(runtimes),
    ...(skipped.length > 0 && { skipped }),
    images: { ...LAB_IMAGES },
    cgroupRoot: LAB_CGROUP_ROOT,
  };
}

/** How one runtime of the lab is set up, started and described; containerd or CRI-O. */
interface RuntimeDriver {
  /** Writes its files; true when they changed (a running daemon is then restarted). */
  prepare(): Promise<boolean>;
  start(): Promise<number>;
  importImages(images: readonly BuiltImage[]): Promise<void>;
  describe(pid: number): Promise<LabRuntime>;
}

function containerdDriver(id: LabRuntimeId, bins: RuntimeBinaries): RuntimeDriver {
  const spec = runtimeSpec(id);
  const dirs = runtimeDirs(id);
  return {
    prepare: () => prepareRuntime(spec, dirs, bins),
    start: () => startContainerd(spec, dirs, bins),
    importImages: (images) => importImages(spec, dirs, bins, images),
    describe: (pid) => describeRuntime(spec, dirs, bins, pid),
  };
}

function crioDriver(programs: CrioPrograms): RuntimeDriver {
  const spec = runtimeSpec('cri-o');
  const dirs = runtimeDirs('cri-o');
  const bins = crioBinaries(programs, RUNC, CNI_BIN_DIR);
  const importer = crioImporter(dirs, programs, SKOPEO);
  return {
    prepare: () => prepareCrio({ spec, dirs, bins }),
    start: () => startCrio({ spec, dirs, bins }),
    importImages: (images) => importCrioImages(spec, dirs, importer, images),
    describe: (pid) => describeCrio(spec, dirs, bins, importer, pid),
  };
}

async function upRuntime(
  id: LabRuntimeId,
  driver: RuntimeDriver,
  images: BuiltImage[],
): Promise<LabRuntime> {
  const spec = runtimeSpec(id);
  const dirs = runtimeDirs(id);
  const name = daemonName(spec);
  const changed = await driver.prepare();
  let pid = await runningPid(dirs);
  if (pid !== undefined && (changed || !(await isResponsive(dirs)))) {
    progress(
      `${id}: ${changed ? 'config changed' : 'not responding'}, restarting ${name} (pid ${pid})`,
    );
    await stopProcess(`${id} ${name}`, pid);
    pid = undefined;
  }
  if (pid === undefined) {
    pid = await driver.start();
  } else {
    progress(`${id}: already running (pid ${pid})`);
  }
  await driver.importImages(images);
  const runtime = await driver.describe(pid);
  progress(`${id}: ready, ${spec.kind} ${runtime.versionFull}`);
  return runtime;
}

/**
 * Where CRI-O's programs are, if it is to run: undefined (with the reason in `skipped`)
 * when it was only asked for by default and there is no crio. Named explicitly, a missing
 * crio is an error.
 */
async function crioPrograms(
  args: Args,
  skipped: LabSkippedRuntime[],
): Promise<CrioPrograms | undefined> {
  if (!args.runtimes.includes('cri-o')) return undefined;
  const lookup = await findCrio();
  if (!lookup.found) {
    if (!args.optional.includes('cri-o')) {
      throw new LabError(
        `cri-o: ${lookup.reason}.`,
        `Point ${CRIO_DIR_VARIABLE} at the directory of your crio (with pinns and copyimg).`,
      );
    }
    // One line, and lab.json keeps the reason for the test suites to print.
    process.stderr.write(`lab: cri-o not started: ${lookup.reason}.\n`);
    skipped.push({ id: 'cri-o', reason: lookup.reason });
    return undefined;
  }
  progress(`cri-o: ${lookup.programs.crio} (from ${lookup.programs.from})`);
  return lookup.programs;
}

/** The runtimes of lab.json that still run, minus `except`. */
async function stillRunning(
  info: LabInfo | undefined,
  except: readonly LabRuntimeId[],
): Promise<LabRuntime[]> {
  const kept: LabRuntime[] = [];
  for (const runtime of info?.runtimes ?? []) {
    if (except.includes(runtime.id)) continue;
    if ((await runningPid(runtimeDirs(runtime.id))) !== undefined) kept.push(runtime);
  }
  return kept;
}

function printRuntimes(runtimes: readonly LabRuntime[]): void {
  for (const r of runtimes) {
    process.stdout.write(
      `${r.id.padEnd(15)} ${r.versionFull.padEnd(16)} ${r.endpoint}  pid ${r.pid}\n`,
    );
  }
}

async function up(args: Args): Promise<void> {
  const cache = cacheDir();
  await ensureLabDir();
  const skipped: LabSkippedRuntime[] = [];
  const crio = await crioPrograms(args, skipped);
  const runtimes = args.runtimes.filter((id) => id !== 'cri-o' || crio !== undefined);
  const want16 = runtimes.includes('containerd-1.6');
  await ensurePackages(
    requirements({
      containerd16: want16,
      compiler: await pauseNeedsCompiler(cache),
      crio: crio !== undefined,
      skopeo: crio !== undefined && crio.copyimg === undefined,
    }),
  );
  if (crio !== undefined) progress(`cri-o: ${await crioVersion(crio.crio)}`);
  const [drivers, images] = await Promise.all([
    Promise.all(
      runtimes.map(async (id): Promise<RuntimeDriver> => {
        if (id !== 'cri-o') return containerdDriver(id, await runtimeBinaries(id));
        if (crio === undefined) throw new Error('cri-o was not found');
        return crioDriver(crio);
      }),
    ),
    buildImages(cache),
  ]);
  const previous = await readLabFile().catch(() => undefined);
  const results = await Promise.allSettled(
    runtimes.map((id, index) => {
      const driver = drivers[index];
      if (driver === undefined) throw new Error(`no driver for ${id}`);
      return upRuntime(id, driver, images);
    }),
  );
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) =>
    r.status === 'rejected'
      ? [r.reason instanceof Error ? r.reason : new Error(String(r.reason))]
      : [],
  );
  // Record what does run, even if another runtime failed.
  const running = [...(await stillRunning(previous, runtimes)), ...started];
  const notRunning = skipped.filter((entry) => !running.some((r) => r.id === entry.id));
  if (running.length > 0) await writeLabFile(labInfo(running, notRunning));
  const [firstFailure] = failed;
  if (firstFailure !== undefined) {
    for (const extra of failed.slice(1)) process.stderr.write(`lab: ${errorMessage(extra)}\n`);
    throw firstFailure;
  }
  progress(`up in ${(elapsedMs() / 1000).toFixed(1)} s; wrote ${labFile()}`);
  printRuntimes(labInfo(running).runtimes);
}

async function downRuntime(id: LabRuntimeId): Promise<void> {
  const spec = runtimeSpec(id);
  const dirs = runtimeDirs(id);
  if (!(await exists(dirs.base))) return;
  const pid = await runningPid(dirs);
  const name = daemonName(spec);
  if (pid !== undefined) {
    if (await isResponsive(dirs)) await removePods(spec, dirs);
    progress(`${id}: stopping ${name} (pid ${pid})`);
    await stopProcess(`${id} ${name}`, pid);
  }
  if (spec.kind === 'cri-o') await cleanupCrio(spec, dirs, RUNC);
  else await cleanupRuntime(spec, dirs, RUNC);
  // The (empty) cgroups its test pods used.
  await removeCgroups([runtimeCgroup(spec)]);
  progress(`${id}: down`);
}

async function down(args: Args): Promise<void> {
  const previous = await readLabFile().catch(() => undefined);
  await Promise.all(args.runtimes.map((id) => downRuntime(id)));
  const remaining = await stillRunning(previous, args.runtimes);
  if (remaining.length > 0) {
    await writeLabFile(labInfo(remaining, previous?.skipped));
    return;
  }
  await removeLabFile();
  await removeCgroups([LAB_CGROUP_ROOT]);
  const left = await readdir(labDir()).catch(() => undefined);
  if (left !== undefined && left.length === 0) await rmdir(labDir());
  else if (left !== undefined) progress(`left ${labDir()} in place: it holds ${left.join(', ')}`);
  if (args.purge) {
    await rm(cacheDir(), { recursive: true, force: true });
    progress(`removed the cache ${cacheDir()}`);
  }
  progress(`down in ${(elapsedMs() / 1000).toFixed(1)} s`);
}

async function status(args: Args): Promise<boolean> {
  const info = await readLabFile().catch(() => undefined);
  const up: LabRuntime[] = [];
  let anyUp = false;
  for (const id of args.runtimes) {
    const dirs = runtimeDirs(id);
    const pid = await runningPid(dirs);
    const known = info?.runtimes.find((r) => r.id === id);
    const skipped = info?.skipped?.find((r) => r.id === id);
    let line: string;
    if (pid === undefined) {
      line = `${id.padEnd(15)} ${skipped !== undefined ? `not started: ${skipped.reason}` : 'stopped'}`;
    } else {
      try {
        const version = await withCri(dirs.socket, (cri) => cri.version({ timeoutMs: 3000 }));
        line = `${id.padEnd(15)} running  ${version.runtimeVersion.padEnd(16)} unix://${dirs.socket}  pid ${pid}`;
        anyUp = true;
        if (known !== undefined) up.push({ ...known, pid, versionFull: version.runtimeVersion });
      } catch (error) {
        line = `${id.padEnd(15)} not responding (pid ${pid}): ${errorMessage(error)}`;
      }
    }
    if (!args.json) process.stdout.write(`${line}\n`);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(labInfo(up, info?.skipped), null, 2)}\n`);
  }
  return anyUp;
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.command === 'status') return (await status(args)) ? 0 : 1;
  // restart takes the lab lock itself, once per runtime.
  if (args.command === 'restart') {
    for (const id of args.runtimes) {
      const restarted = await restartLabRuntime(id, args.signal);
      process.stdout.write(
        `${id.padEnd(15)} pid ${restarted.stoppedPid} → ${restarted.pid}, CRI ready ${restarted.readyAt - restarted.startedAt} ms after start\n`,
      );
    }
    return 0;
  }
  const release = await acquireLock();
  try {
    if (args.command === 'up') await up(args);
    else await down(args);
    return 0;
  } finally {
    await release();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof LabError) {
      process.stderr.write(
        `lab: ${error.message}\n${error.detail !== undefined ? `${error.detail}\n` : ''}`,
      );
    } else {
      process.stderr.write(
        `lab: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exitCode = 1;
  },
);
