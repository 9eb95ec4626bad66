/**
 * electron-builder.yml, checked without electron-builder (it can't be installed offline):
 * identity, targets per OS, icons, and a files whitelist that, after a real build, matches
 * exactly what the app needs at run time.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildElectron, buildRenderer, root } from './build';

interface BuilderConfig {
  appId?: string;
  productName?: string;
  directories?: { output?: string; buildResources?: string };
  files?: string[];
  asar?: boolean;
  linux?: { target?: string[]; icon?: string; category?: string; maintainer?: string };
  mac?: { target?: string | string[]; icon?: string; category?: string };
  win?: { target?: string | string[]; icon?: string };
  electronFuses?: Record<string, unknown>;
}

/**
 * FuseOptionsV1's properties in electron-builder 26.0.12's scheme.json (the version `npm
 * run dist` runs; its schema has additionalProperties: false, so a misspelt key would
 * fail the build, or worse, were it ever loosened, be ignored).
 */
const fuseOptionsV1 = [
  'enableCookieEncryption',
  'enableEmbeddedAsarIntegrityValidation',
  'enableNodeCliInspectArguments',
  'enableNodeOptionsEnvironmentVariable',
  'grantFileProtocolExtraPrivileges',
  'loadBrowserProcessSpecificV8Snapshot',
  'onlyLoadAppFromAsar',
  'resetAdHocDarwinSignature',
  'runAsNode',
];

const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main?: string;
  productName?: string;
  scripts?: Record<string, string>;
};

/** PNG width and height from the IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(path);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

describe('electron-builder.yml', () => {
  beforeAll(async () => {
    await buildRenderer();
    await buildElectron();
  }, 120_000);

  it('names the app', () => {
    expect(config.appId).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+){2,}$/);
    expect(config.productName).toBe(pkg.productName);
    expect(pkg.scripts?.dist).toContain('electron-builder');
  });

  it('builds for every OS: AppImage and deb, dmg, nsis', () => {
    expect(config.linux?.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.linux?.maintainer).toBeTruthy(); // deb refuses to build without one
    expect(asList(config.mac?.target)).toContain('dmg');
    expect(asList(config.win?.target)).toContain('nsis');
    expect(config.asar).toBe(true);
  });

  it('flips the fuses: no Node shell, encrypted cookies, only its own checked app.asar', () => {
    const fuses = config.electronFuses ?? {};
    for (const key of Object.keys(fuses)) expect(fuseOptionsV1, key).toContain(key);
    expect(fuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      loadBrowserProcessSpecificV8Snapshot: false,
    });
    // onlyLoadAppFromAsar needs the app in an asar; RunAsNode off rules out child_process.fork.
    expect(config.asar).toBe(true);
    const main = readFileSync(join(root, 'out/app/main/index.cjs'), 'utf8');
    // (protobufjs has a Writer.fork(), without arguments; child_process.fork takes a module.)
    expect(main).not.toMatch(/\.fork\([^)]|\.fork\)\(/);
  });

  it('has icons that exist and are large enough for every platform', () => {
    for (const icon of [config.linux?.icon, config.mac?.icon, config.win?.icon]) {
      expect(icon).toBeDefined();
      const path = join(root, icon ?? '');
      expect(existsSync(path), icon).toBe(true);
      const { width, height } = pngSize(path);
      expect(width).toBeGreaterThanOrEqual(512); // macOS needs 512×512
      expect(height).toBe(width);
    }
    expect(existsSync(join(root, config.directories?.buildResources ?? 'build'))).toBe(true);
  });

  it('ships only built output, and everything the app loads is in it', () => {
    const files = config.files ?? [];
    const included = files.filter((pattern) => !pattern.startsWith('!'));
    expect(included).toEqual(['package.json', 'out/app/**/*']);
    expect(files).toContain('!node_modules/**/*');
    // Every whitelisted path exists after the build…
    for (const pattern of included) {
      const base = pattern.replace(/\/\*\*.*$/, '');
      expect(existsSync(join(root, base)), base).toBe(true);
    }
    // …and what Electron loads lives inside it.
    expect(pkg.main).toBe('out/app/main/index.cjs');
    for (const path of [
      pkg.main ?? '',
      'out/app/preload/index.cjs',
      'out/app/renderer/index.html',
    ]) {
      expect(path.startsWith('out/app/')).toBe(true);
      expect(statSync(join(root, path)).size, path).toBeGreaterThan(0);
    }
  });

  it('bundles main: it requires nothing but Electron and Node built-ins', () => {
    const main = readFileSync(join(root, 'out/app/main/index.cjs'), 'utf8');
    const required = new Set(
      [...main.matchAll(/\brequire\("([^"./][^"]*)"\)/g)].map((match) => match[1] ?? ''),
    );
    // Optional native add-ons that ws and ssh2 try to load and do without.
    const optional = new Set(['bufferutil', 'utf-8-validate', 'cpu-features']);
    for (const name of required) {
      if (name === 'electron' || optional.has(name)) continue;
      expect(name.startsWith('node:') || builtinModules.includes(name), name).toBe(true);
    }
  });

  it('keeps build output out of git', () => {
    const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['out/', `${config.directories?.output}/`]));
  });
});
