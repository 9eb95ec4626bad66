import { defineConfig } from 'vitest/config';

/**
 * Suites against real runtimes and a real browser wait on conditions; vitest's default of
 * one second for expect.poll is a guess at this machine's speed (a terminal opening on a
 * shared, contended CI machine can take longer). Long enough for any machine; a condition
 * that holds returns at once.
 */
const pollUntil = { poll: { timeout: 15_000 } };

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            '{shared,electron,renderer,scripts,proto}/**/*.test.{ts,tsx}',
            'test/support/**/*.test.ts',
          ],
          environment: 'node',
          // vitest's 5 s is one machine's guess too: under a load average of 22 on two
          // cores, unit files that render React or load ESLint took 3–10 s. A test that
          // hangs still fails, later.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          // Real runtimes: a pod start is ~100 ms but image imports and CNI can be slower.
          testTimeout: 60_000,
          hookTimeout: 120_000,
          expect: pollUntil,
          // The lab's containerds are shared: keep files serial so tests don't compete
          // for the same two cores and make deadlines flaky.
          fileParallelism: false,
        },
      },
      {
        test: {
          // Porthole in headless Chromium (browser mode, in-process host) against the lab.
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          // The renderer build (when stale) runs in a hook; each step waits on a real runtime.
          testTimeout: 90_000,
          hookTimeout: 180_000,
          expect: pollUntil,
          fileParallelism: false,
        },
      },
    ],
  },
});
