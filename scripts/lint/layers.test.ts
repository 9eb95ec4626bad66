/**
 * The layering rules in eslint.config.js, exercised: each layer may import what the
 * architecture allows and is refused what it doesn't. Only `no-restricted-imports` runs
 * here, without type information, so virtual files can be linted.
 */
import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({
  cwd: root,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function violations(file: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return result?.messages.filter((m) => m.ruleId === 'no-restricted-imports').length ?? -1;
}

// The first lint loads the config, the plugins and the parser: 10 s was seen on a busy
// machine, twice the unit tests' bound, so it is paid here with a bound of its own.
beforeAll(async () => {
  await violations('shared/model/x.ts', '');
}, 60_000);

describe('layering', () => {
  it.each([
    ["import { readFile } from 'node:fs';"],
    ["import { join } from 'path';"],
    ["import { app } from 'electron';"],
    ["import { parse } from 'yaml';"],
    ["import { CriClient } from '../../electron/core/base/cri';"],
    ["import { App } from '../renderer/src/app';"],
  ])('shared refuses %s', async (line) => {
    expect(await violations('shared/model/x.ts', line)).toBeGreaterThan(0);
  });

  it('shared may import shared', async () => {
    expect(
      await violations('shared/model/x.ts', "import type { AppError } from '../errors';"),
    ).toBe(0);
  });

  it.each([
    ["import { ipcMain } from 'electron';"],
    ["import { secureWebPreferences } from '../../main/security';"],
    ["import { formatAge } from '../../../renderer/src/ui/format';"],
  ])('electron/core refuses %s', async (line) => {
    expect(await violations('electron/core/cri/x.ts', line)).toBeGreaterThan(0);
  });

  it('electron/core may use Node and shared', async () => {
    const code =
      "import { readFile } from 'node:fs/promises';\nimport { AppError } from '../../../shared/errors';";
    expect(await violations('electron/core/cri/x.ts', code)).toBe(0);
  });

  it.each([
    ["import { readFile } from 'node:fs';"],
    ["import { createServer } from 'http';"],
    ["import { ipcRenderer } from 'electron';"],
    ["import { CriClient } from '../../../electron/core/cri';"],
  ])('renderer refuses %s', async (line) => {
    expect(await violations('renderer/src/ui/x.ts', line)).toBeGreaterThan(0);
  });

  it('renderer may import shared', async () => {
    expect(
      await violations(
        'renderer/src/ui/x.ts',
        "import type { Container } from '../../../shared/model';",
      ),
    ).toBe(0);
  });

  it('electron/main may import electron', async () => {
    expect(await violations('electron/main/x.ts', "import { app } from 'electron';")).toBe(0);
  });
});
