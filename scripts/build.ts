/**
 * Builds the app into out/app: the renderer (Vite + React) into out/app/renderer, and the
 * Electron main process and preload (bundled by Vite's Rolldown, everything they import
 * inlined except Electron and Node's built-ins) into out/app/main and out/app/preload.
 *
 *   npm run build                       everything
 *   npm run build -- renderer|electron  one part
 */
import { existsSync, statSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { build, type InlineConfig } from 'vite';

export const root = resolve(import.meta.dirname, '..');
export const outDir = join(root, 'out/app');
export const rendererOutDir = join(outDir, 'renderer');

/** Node built-ins plus optional native add-ons our dependencies try to load. */
const external = [
  'electron',
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  'bufferutil',
  'utf-8-validate',
  'cpu-features',
];

export function rendererConfig(): InlineConfig {
  return {
    configFile: false,
    root: join(root, 'renderer'),
    base: '/',
    // Always a production build, even when NODE_ENV says otherwise (vitest sets `test`,
    // and Vite would then bundle React's development build).
    mode: 'production',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    logLevel: 'warn',
    plugins: [react()],
    build: {
      outDir: rendererOutDir,
      emptyOutDir: true,
      target: 'chrome120',
      sourcemap: false,
      // One code path in both modes: no eval, no inline scripts (the CSP forbids them).
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      // Loaded from local disk or loopback, never over a slow network.
      chunkSizeWarningLimit: 1500,
    },
  };
}

/** Main and preload are CommonJS: Electron's sandboxed preloads can't be ES modules. */
function nodeBundle(entry: string, out: string, fileName: string): InlineConfig {
  return {
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      ssr: entry,
      outDir: out,
      emptyOutDir: true,
      target: 'node20',
      sourcemap: false,
      minify: false,
      rollupOptions: {
        external,
        output: { format: 'cjs', entryFileNames: fileName },
      },
    },
    ssr: { noExternal: true, external: ['electron'] },
  };
}

export async function buildRenderer(): Promise<void> {
  // Vite decides `isProduction` (and so the JSX runtime) from NODE_ENV, not from `mode`:
  // under vitest (NODE_ENV=test) it would emit jsxDEV calls that React's production
  // build doesn't have. Force it for the build, then put back what was there.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build(rendererConfig());
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

export async function buildElectron(): Promise<void> {
  await build(nodeBundle(join(root, 'electron/main/index.ts'), join(outDir, 'main'), 'index.cjs'));
  await build(
    nodeBundle(join(root, 'electron/preload/index.ts'), join(outDir, 'preload'), 'index.cjs'),
  );
}

function newestMtime(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Whether out/app/renderer is missing or older than the sources it is built from. */
export function rendererIsStale(): boolean {
  const index = join(rendererOutDir, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return ['renderer', 'shared'].some((dir) => newestMtime(join(root, dir)) > built);
}

async function main(): Promise<void> {
  const what = process.argv[2] ?? 'all';
  const started = Date.now();
  if (what === 'all' || what === 'renderer') await buildRenderer();
  if (what === 'all' || what === 'electron') await buildElectron();
  if (!['all', 'renderer', 'electron'].includes(what)) {
    throw new Error(`Unknown part "${what}": use renderer, electron or nothing for all.`);
  }
  console.log(
    `Built ${what === 'all' ? 'the app' : `the ${what}`} into out/app in ${Date.now() - started} ms.`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
