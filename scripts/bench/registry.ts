/**
 * Every bench `npm run bench` runs, in order. A later issue adds its bench here: a name and
 * a loader for a module with `run(context)` returning named figures (see types.ts). Modules
 * load lazily, so a bench that can't even load (a missing browser, a module mid-rewrite)
 * fails alone and the others still run.
 */
import type { BenchFigure, BenchModule, BenchTarget } from './types';

export interface BenchEntry {
  readonly name: string;
  load(): Promise<BenchModule>;
}

/** Units and target direction follow the figure's name: `_mbps` is a floor, `_ms` a ceiling. */
function fromRecord(
  name: string,
  run: () => Promise<Readonly<Record<string, number>>>,
  targets: Readonly<Record<string, number>> = {},
): BenchModule {
  return {
    name,
    async run(): Promise<BenchFigure[]> {
      const results = await run();
      return Object.entries(results).map(([key, value]) => {
        const unit = key.endsWith('_mbps') ? 'MB/s' : key.endsWith('_ms') ? 'ms' : '';
        const limit = targets[key];
        const target: BenchTarget | undefined =
          limit === undefined ? undefined : { op: unit === 'MB/s' ? '>=' : '<=', value: limit };
        return { name: key, value, unit, ...(target !== undefined && { target }) };
      });
    },
  };
}

export const benches: readonly BenchEntry[] = [
  { name: 'exec', load: async () => (await import('./exec')).execBench },
  { name: 'portforward', load: async () => (await import('./portforward')).portForwardBench },
  { name: 'logs', load: async () => (await import('./logs')).logsBench },
  {
    name: 'ssh',
    load: async () => fromRecord('ssh', (await import('./ssh')).runSshBench),
  },
  { name: 'crictl', load: async () => (await import('./crictl')).crictlBench },
  { name: 'terminal', load: async () => (await import('./terminal')).terminalBench },
  { name: 'recovery', load: async () => (await import('./recovery')).recoveryBench },
  { name: 'debug', load: async () => (await import('./debug')).debugBench },
  { name: 'files', load: async () => (await import('./files')).filesBench },
  { name: 'fleet', load: async () => (await import('./fleet')).fleetBench },
  { name: 'fanout', load: async () => (await import('./fanout')).fanoutBench },
  { name: 'timeline', load: async () => (await import('./timeline')).timelineBench },
  {
    name: 'ui',
    load: async () => {
      const { uiBench } = await import('./ui');
      return fromRecord('ui', async () => ({ ...(await uiBench.run()) }), uiBench.targets);
    },
  },
  {
    name: 'ui-rows',
    load: async () => {
      const { runUiRowsBench, uiRowsBenchTargets } = await import('./ui-rows');
      return fromRecord(
        'ui-rows',
        async () => ({ ...(await runUiRowsBench()) }),
        uiRowsBenchTargets,
      );
    },
  },
  {
    name: 'ui-fleet',
    load: async () => {
      const { uiFleetBench } = await import('./ui-fleet');
      return fromRecord(
        'ui-fleet',
        async () => ({ ...(await uiFleetBench.run()) }),
        uiFleetBench.targets,
      );
    },
  },
];
