/**
 * The core's inner layering (porthole/core-layers in eslint.config.js), exercised as
 * layers.test.ts does the outer one: virtual files in the base, in features and in the
 * composition root, each import allowed or reported. Then the features as they are: their
 * imports of one another form no cycle.
 */
import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => ruleId === 'porthole/core-layers',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function violations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  if (result === undefined) throw new Error(`${file} was not linted`);
  return result.messages.filter((m) => m.ruleId === 'porthole/core-layers').map((m) => m.message);
}

// The first lint loads the config, the plugins and the parser: seconds on a busy machine.
beforeAll(async () => {
  await violations('electron/core/composition.ts', '');
}, 60_000);

describe('core layering', () => {
  it.each([
    ['electron/core/base/cri/x.ts', "import { NodeManager } from '../../features/nodes';"],
    [
      'electron/core/base/x.ts',
      "import type { Terminal } from './../features/terminals/terminal';",
    ],
    [
      'electron/core/base/streaming/spdy/x.ts',
      "import { createCore } from '../../../composition';",
    ],
    [
      'electron/core/features/terminals/x.ts',
      "import { NodeManager } from '../nodes/node-manager';",
    ],
    ['electron/core/features/terminals/x.ts', "export { nodeFiles } from '../nodes/files';"],
    ['electron/core/features/terminals/x.ts', "export * from '../nodes/index/../files';"],
    ['electron/core/features/terminals/x.ts', "const m = import('../sessions/registry');"],
    ['electron/core/features/terminals/deep/x.ts', "import type { X } from '../../nodes/ssh';"],
    [
      'electron/core/features/logs/x.ts',
      "import type { NodeFiles } from '../../base/files/files';",
    ],
    ['electron/core/features/logs/x.ts', "import { createCore } from '../../composition';"],
    [
      'electron/core/features/logs/x.test.ts',
      "import { NodeManager } from '../nodes/node-manager';",
    ],
    [
      'electron/core/composition.ts',
      "import { NodeManager } from './features/nodes/node-manager';",
    ],
    ['electron/core/host/x.ts', "import { CriClient } from '../base/cri/client';"],
  ])('%s refuses %s', async (file, line) => {
    expect(await violations(file, line)).toHaveLength(1);
  });

  it('names the way out', async () => {
    expect(
      await violations(
        'electron/core/features/terminals/x.ts',
        "import { NodeManager } from '../nodes/node-manager';",
      ),
    ).toEqual(["Import the 'nodes' feature through its index.ts ('../nodes'), not its internals."]);
  });

  it('lets a feature stand on the base, shared and other features’ indexes', async () => {
    const code = [
      "import { NodeManager } from '../nodes';",
      "import { SessionRegistry } from '../sessions/index';",
      "import { CriClient } from '../../base/cri';",
      "import { listenAll } from '../../base/streaming/portforward';",
      "import { requireString } from '../../base/args';",
      "import { AppError } from '../../../../shared/errors';",
      "import { Terminal } from './terminal';",
      "import { parse } from 'yaml';",
    ].join('\n');
    expect(await violations('electron/core/features/terminals/x.ts', code)).toEqual([]);
  });

  it('lets test code use other features’ testing/ and the composition root', async () => {
    const code = [
      "import { FakeNodeClient } from '../nodes/testing/fake-node-client';",
      "import { FakeSpdyServer } from '../../base/streaming/spdy/testing/fake-spdy-server';",
      "import { createCore } from '../../composition';",
    ].join('\n');
    expect(await violations('electron/core/features/forwards/x.test.ts', code)).toEqual([]);
    expect(
      await violations(
        'electron/core/features/terminals/testing/fake.ts',
        "import { FakeNodeClient } from '../../nodes/testing/fake-node-client';",
      ),
    ).toEqual([]);
  });

  it('leaves the base’s modules to import one another', async () => {
    expect(
      await violations(
        'electron/core/base/ssh/x.ts',
        "import { CriClient } from '../cri/client';\nimport { AppError } from '../../../../shared/errors';",
      ),
    ).toEqual([]);
  });

  it('lets the composition root wire features through their indexes', async () => {
    expect(
      await violations(
        'electron/core/composition.ts',
        "import { NodeManager } from './features/nodes';",
      ),
    ).toEqual([]);
  });
});

type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/** A cycle in the graph as the path that closes it (`a → b → a`), or undefined. */
function findCycle(graph: Graph): string[] | undefined {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    const seen = path.indexOf(node);
    if (seen >= 0) return [...path.slice(seen), node];
    if (done.has(node)) return undefined;
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle !== undefined) return cycle;
    }
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** Which features each feature's code imports (tests and testing/ left out). */
function featureGraph(): Graph {
  const features = join(root, 'electron/core/features');
  const graph = new Map<string, Set<string>>();
  for (const file of readdirSync(features, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    if (file.split(sep).includes('testing')) continue;
    const feature = file.split(sep)[0] ?? '';
    const edges = graph.get(feature) ?? new Set<string>();
    graph.set(feature, edges);
    const source = readFileSync(join(features, file), 'utf8');
    for (const [, spec = ''] of source.matchAll(/(?:from|import\()\s*'(\.[^']*)'/g)) {
      const [into = '..'] = relative(features, resolve(dirname(join(features, file)), spec)).split(
        sep,
      );
      if (into !== '..' && into !== feature) edges.add(into);
    }
  }
  return graph;
}

describe('features', () => {
  it('import one another without a cycle', () => {
    const graph = featureGraph();
    expect([...graph.keys()]).toEqual(expect.arrayContaining(['nodes', 'terminals', 'forwards']));
    expect(graph.get('terminals')).toContain('nodes');
    expect(findCycle(graph)).toBeUndefined();
  });

  it('a cycle is found when there is one', () => {
    const graph = new Map([
      ['terminals', new Set(['nodes', 'sessions'])],
      ['sessions', new Set<string>()],
      ['nodes', new Set(['terminals'])],
    ]);
    expect(findCycle(graph)).toEqual(['terminals', 'nodes', 'terminals']);
  });
});
