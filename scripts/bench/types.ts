/**
 * The bench runner's contract (scripts/bench/run.ts): a bench module has a name and a run
 * function that measures against the lab and returns named figures. Add a module to
 * registry.ts and `npm run bench` runs it, records its figures in bench/results-<runtime>.json and
 * prints them with their targets.
 */
import type { LabRuntime } from '../../test/support/lab';

export interface BenchTarget {
  readonly op: '>=' | '<=';
  readonly value: number;
}

export interface BenchFigure {
  /** A stable key for bench/results-<runtime>.json, e.g. `exec_stdout_mbps_spdy`. */
  readonly name: string;
  readonly value: number;
  /** MB/s (10^6 bytes per second), ms, MB… */
  readonly unit: string;
  /** What the issue asks for, when it does. */
  readonly target?: BenchTarget;
}

export interface BenchContext {
  /** The lab runtime to measure (`--runtime`, default containerd-2). */
  readonly runtime: LabRuntime;
  readonly log: (line: string) => void;
}

export interface BenchModule {
  readonly name: string;
  run(context: BenchContext): Promise<readonly BenchFigure[]>;
}

export function meets(value: number, target: BenchTarget): boolean {
  return target.op === '>=' ? value >= target.value : value <= target.value;
}
