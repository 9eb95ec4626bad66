/**
 * `npm run bench`: runs the registered benches (registry.ts) against the lab in one go,
 * prints a table of figures with their targets, and writes bench/results-<runtime>.json.
 *
 *   npm run bench                       every bench on containerd-2
 *   npm run bench -- --runtime 1.6      on containerd 1.6 (or cri-o)
 *   npm run bench -- --only exec        some benches (comma-separated names)
 *   npm run bench -- --compare containerd-2,cri-o
 *                                       the figures of earlier runs side by side, as ratios
 *
 * Benchmarks, not tests: a missed target is reported (and sets exit code 2), it doesn't
 * abort the run. A bench that throws is reported and the others still run (exit code 1).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { labRuntimes, matchesRuntime, type LabRuntime } from '../../test/support/lab';
import { benches } from './registry';
import { meets, type BenchFigure } from './types';

/** One file per runtime, so that runs on several runtimes can be compared. */
function resultsPath(runtimeId: string): string {
  return resolve(import.meta.dirname, `../../bench/results-${runtimeId}.json`);
}

interface FigureRecord extends BenchFigure {
  readonly bench: string;
  readonly pass?: boolean;
}

interface Results {
  readonly runtime: { readonly id: string; readonly version: string };
  readonly host: { readonly node: string; readonly cpus: number; readonly model: string };
  readonly startedAt: string;
  readonly finishedAt: string;
  /** name → value, for quick comparisons across runs. */
  readonly figures: Record<string, number>;
  readonly details: readonly FigureRecord[];
  readonly errors: Record<string, string>;
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function pickRuntime(wanted: string): LabRuntime {
  const runtimes = labRuntimes();
  const runtime = runtimes.find((r) => matchesRuntime(r, wanted));
  if (runtime === undefined) {
    throw new Error(`No lab runtime "${wanted}" (have ${runtimes.map((r) => r.id).join(', ')}).`);
  }
  return runtime;
}

/** Earlier figures of the same runtime survive a partial (`--only`) run. */
function previous(runtimeId: string): Results | undefined {
  try {
    const old = JSON.parse(readFileSync(resultsPath(runtimeId), 'utf8')) as Results;
    return old.runtime.id === runtimeId ? old : undefined;
  } catch {
    return undefined;
  }
}

function formatTable(header: readonly string[], lines: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const numeric = (cell: string): boolean => /^[-\d.×]+$/.test(cell);
  const format = (cells: readonly string[]): string =>
    cells
      .map((cell, i) =>
        numeric(cell) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join(
    '\n',
  );
}

/**
 * `--compare a,b`: the figures two earlier runs recorded, side by side, with b/a. Absolute
 * figures swing between machines and loads: compare runs of one sitting.
 */
function compare(ids: readonly string[]): number {
  const [a, b] = ids.map((id) => {
    const runtime = pickRuntime(id);
    const results = previous(runtime.id);
    if (results === undefined) {
      throw new Error(`No figures for ${runtime.id} yet: npm run bench -- --runtime ${id}`);
    }
    return results;
  });
  if (a === undefined || b === undefined || ids.length !== 2) {
    throw new Error('--compare takes two runtimes, e.g. --compare containerd-2,cri-o');
  }
  const units = new Map(a.details.map((d) => [d.name, d.unit]));
  const names = [...new Set([...Object.keys(a.figures), ...Object.keys(b.figures)])];
  const lines = names.map((name) => {
    const x = a.figures[name];
    const y = b.figures[name];
    const ratio = x !== undefined && y !== undefined && x !== 0 ? `${(y / x).toFixed(2)}×` : '—';
    return [
      name,
      x === undefined ? '—' : String(x),
      y === undefined ? '—' : String(y),
      units.get(name) ?? '',
      ratio,
    ];
  });
  console.log(
    `${a.runtime.id} ${a.runtime.version} (${a.startedAt}) and ${b.runtime.id} ${b.runtime.version} (${b.startedAt}):\n`,
  );
  console.log(
    formatTable(
      ['figure', a.runtime.id, b.runtime.id, 'unit', `${b.runtime.id}/${a.runtime.id}`],
      lines,
    ),
  );
  return 0;
}

function table(rows: readonly FigureRecord[]): string {
  return formatTable(
    ['bench', 'figure', 'value', 'unit', 'target', 'ok'],
    rows.map((row) => [
      row.bench,
      row.name,
      String(row.value),
      row.unit,
      row.target ? `${row.target.op} ${row.target.value}` : '—',
      row.pass === undefined ? '' : row.pass ? 'yes' : 'NO',
    ]),
  );
}

async function main(): Promise<number> {
  const comparing = argument('compare');
  if (comparing !== undefined) return compare(comparing.split(',').map((s) => s.trim()));
  const runtime = pickRuntime(argument('runtime') ?? 'containerd-2');
  const only = argument('only')
    ?.split(',')
    .map((s) => s.trim());
  const selected = benches.filter((b) => only === undefined || only.includes(b.name));
  if (selected.length === 0) throw new Error(`No bench named ${only?.join(', ')}.`);
  const startedAt = new Date().toISOString();
  console.log(
    `Benches on ${runtime.id} (${runtime.version}): ${selected.map((b) => b.name).join(', ')}`,
  );

  const records: FigureRecord[] = [];
  const errors: Record<string, string> = {};
  for (const bench of selected) {
    const log = (line: string): void => console.log(`  [${bench.name}] ${line}`);
    const started = performance.now();
    try {
      const module = await bench.load();
      const figures = await module.run({ runtime, log });
      for (const figure of figures) {
        records.push({
          ...figure,
          bench: bench.name,
          ...(figure.target !== undefined && { pass: meets(figure.value, figure.target) }),
        });
      }
      log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      errors[bench.name] = error instanceof Error ? error.message : String(error);
      log(`FAILED: ${errors[bench.name]}`);
    }
  }

  const old = previous(runtime.id);
  const ran = new Set(selected.map((b) => b.name));
  const kept = (old?.details ?? []).filter((d) => !ran.has(d.bench));
  const details = [...kept, ...records];
  const results: Results = {
    runtime: { id: runtime.id, version: runtime.version },
    host: { node: process.version, cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' },
    startedAt,
    finishedAt: new Date().toISOString(),
    figures: Object.fromEntries(details.map((d) => [d.name, d.value])),
    details,
    errors: {
      ...Object.fromEntries(Object.entries(old?.errors ?? {}).filter(([name]) => !ran.has(name))),
      ...errors,
    },
  };
  const path = resultsPath(runtime.id);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);

  console.log(`\nFigures from ${runtime.id} ${runtime.version} (MB = 10^6 bytes):\n`);
  console.log(table(records));
  for (const [name, message] of Object.entries(errors))
    console.log(`\n${name}: FAILED — ${message}`);
  console.log(`\nWritten to ${path}`);
  if (Object.keys(errors).length > 0) return 1;
  return records.some((r) => r.pass === false) ? 2 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
