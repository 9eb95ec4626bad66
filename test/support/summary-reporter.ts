import type { Reporter, TestModule } from 'vitest/node';
import { LAB_RUNTIME_IDS } from '../../scripts/lab/types';
import { labSkipped, readLab } from './lab';

/** The projects that run against the lab. */
const labProjects = new Set(['integration', 'e2e']);

/**
 * Which lab runtimes a run tested, and why the others weren't (no crio binary, say): a
 * runtime left out must never pass silently.
 */
export function labCoverage(): string[] {
  let running: { id: string; version: string }[];
  try {
    running = readLab().runtimes;
  } catch (error) {
    return [`lab runtimes: none (${error instanceof Error ? error.message : String(error)})`];
  }
  const narrowed = process.env.PORTHOLE_LAB_RUNTIMES;
  const lines = [
    `lab runtimes: ${running.map((runtime) => `${runtime.id} ${runtime.version}`).join(', ')}${narrowed ? ` (PORTHOLE_LAB_RUNTIMES=${narrowed} narrows them)` : ''}`,
  ];
  const skipped = labSkipped();
  for (const id of LAB_RUNTIME_IDS) {
    if (running.some((runtime) => runtime.id === id)) continue;
    const reason = skipped.find((entry) => entry.id === id)?.reason;
    lines.push(
      `not tested: ${id} — ${reason ?? 'the lab was started without it (npm run lab -- up)'}`,
    );
  }
  return lines;
}

/**
 * Ends a run with one plain line, "tests: N passed, N failed, N skipped", that any CI log
 * reader understands, whatever vitest's own summary looks like; after a run against the
 * lab, the runtimes it covered first.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let againstLab = false;
    for (const testModule of testModules) {
      if (labProjects.has(testModule.project.name)) againstLab = true;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A module that failed to load has no tests to count but must not read as green.
      if (testModule.state() === 'failed' && testModule.children.size === 0) counts.failed += 1;
    }
    const coverage = againstLab ? `\n${labCoverage().join('\n')}` : '';
    process.stdout.write(
      `${coverage}\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
