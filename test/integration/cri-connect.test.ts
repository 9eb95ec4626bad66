/**
 * Reaching a runtime: discovery in crictl's order against the real lab, and every way a
 * connection fails — missing socket, stale socket, permission denied — as a clear error.
 * The client must also let the process exit once disposed.
 */
import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverEndpoints, probeEndpoint } from '../../electron/core/base/connect';
import { CriClient } from '../../electron/core/base/cri';
import { AppError } from '../../shared/errors';
import type { DiscoveredEndpoint } from '../../shared/model';
import { labRuntimes } from '../support/lab';

const run = promisify(execFile);
const fixtures = resolve(import.meta.dirname, 'fixtures');
const [first, second] = labRuntimes();
if (first === undefined) throw new Error('the lab has no runtime');

/**
 * This Node, where another user can run it: the toolchain's own Node may live under
 * root's 0700 home (scripts/toolchain.sh caches it in ~/.cache), so it is linked (or
 * copied) into the suite's scratch directory.
 */
function nodeForAnyUser(): string {
  const path = join(scratch, 'node');
  if (existsSync(path)) return path;
  try {
    linkSync(process.execPath, path);
  } catch {
    copyFileSync(process.execPath, path);
    chmodSync(path, 0o755);
  }
  return path;
}

/** Runs a fixture under plain Node with tsx, optionally as another user. */
async function runFixture(
  name: string,
  args: string[],
  options: { uid?: number; gid?: number } = {},
): Promise<string> {
  const { stdout } = await run(
    options.uid === undefined ? process.execPath : nodeForAnyUser(),
    ['--import', 'tsx', join(fixtures, name), ...args],
    {
      // tsx compiling the fixture alone took 15–17 s at a load average of 26: the bound
      // is for a process that never exits, not for a slow start.
      timeout: 50_000,
      cwd: resolve(import.meta.dirname, '../..'),
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: resolve(import.meta.dirname, '../../tsconfig.tests.json'),
      },
      ...options,
    },
  );
  return stdout;
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'porthole-connect-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('connection failures', () => {
  async function versionError(endpoint: string): Promise<AppError> {
    const client = CriClient.create({ endpoint, timeoutMs: 2000 });
    try {
      await client.version();
    } catch (error) {
      return error as AppError;
    } finally {
      client.dispose();
    }
    throw new Error('expected Version to fail');
  }

  it('says no runtime is listening at a missing socket', async () => {
    const path = join(scratch, 'missing.sock');
    const error = await versionError(`unix://${path}`);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`No runtime is listening at ${path}.`);
  });

  it('tells a crashed runtime (socket left behind) from a missing one', async () => {
    // A process that listens and is then SIGKILLed leaves its socket file behind, as a
    // crashed runtime does; connecting to it is refused.
    const path = join(scratch, 'crashed.sock');
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => process.stdout.write('up'))`,
    ]);
    await new Promise((done) => child.stdout.once('data', done));
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));

    const error = await versionError(`unix://${path}`);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`The socket ${path} exists but nothing accepts connections on it.`);
    const probe = await probeEndpoint({ endpoint: path, imageEndpoint: path }, 2000);
    expect(probe).toMatchObject({ state: 'refused', errorCode: 'unavailable' });
  });

  it('refuses tcp:// endpoints before dialling', () => {
    expect(() => CriClient.create({ endpoint: 'tcp://127.0.0.1:1' })).toThrow(/TCP/);
  });

  it('explains permission denied, and how to fix it, to a user who may not open the socket', async () => {
    // The lab's sockets are root's (0660): the unprivileged `nobody` must be refused.
    chmodSync(scratch, 0o755);
    const result = JSON.parse(
      await runFixture('probe-as-user.ts', [first.endpoint], { uid: 65534, gid: 65534 }),
    ) as {
      endpoints: DiscoveredEndpoint[];
    };
    const mine = result.endpoints.find((e) => e.source === 'environment');
    expect(mine?.probe).toMatchObject({
      state: 'refused',
      errorCode: 'permission-denied',
      message: `Permission denied opening ${first.socketPath}.`,
    });
    expect(mine?.probe.state === 'refused' && mine.probe.hint).toContain(
      `ls -l ${first.socketPath}`,
    );
  });

  it('lets the process exit on its own once the client is disposed', async () => {
    expect(await runFixture('dispose-exits.ts', [first.endpoint])).toBe('disposed\n');
  });
});

describe('discovery', () => {
  it('finds the runtimes named by the environment and crictl.yaml, in crictl order', async () => {
    const crictl = join(scratch, 'crictl.yaml');
    const other = second ?? first;
    writeFileSync(
      crictl,
      `runtime-endpoint: ${other.endpoint}\nimage-endpoint: ${other.endpoint}\ntimeout: 4\n`,
    );
    const { endpoints, warnings } = await discoverEndpoints({
      env: { CONTAINER_RUNTIME_ENDPOINT: first.endpoint },
      crictlConfigPath: crictl,
      explicit: { endpoint: `unix://${join(scratch, 'explicit-missing.sock')}` },
    });
    expect(warnings).toEqual([]);
    const [explicit, fromEnv, fromCrictl] = endpoints;
    expect(explicit).toMatchObject({ source: 'explicit', probe: { state: 'absent' } });
    expect(fromEnv).toMatchObject({
      source: 'environment',
      endpoint: first.endpoint,
      probe: { state: 'ready', info: { runtimeName: first.kind } },
    });
    if (second !== undefined) {
      expect(fromCrictl).toMatchObject({
        source: 'crictl-config',
        endpoint: second.endpoint,
        timeoutMs: 4000,
        probe: { state: 'ready' },
      });
      const versions = [fromEnv, fromCrictl].map((e) =>
        e?.probe.state === 'ready' ? e.probe.info.runtimeVersion : '',
      );
      expect(versions[0]).toContain(first.version);
      expect(versions[1]).toContain(second.version);
    }
    for (const endpoint of endpoints.filter((e) => e.source === 'well-known')) {
      expect(['ready', 'absent', 'refused', 'error']).toContain(endpoint.probe.state);
    }
  });

  it('reports a broken crictl.yaml as a warning and carries on', async () => {
    const crictl = join(scratch, 'broken.yaml');
    writeFileSync(crictl, 'runtime-endpoint: [\n');
    const { endpoints, warnings } = await discoverEndpoints({
      env: { CONTAINER_RUNTIME_ENDPOINT: first.endpoint },
      crictlConfigPath: crictl,
    });
    expect(warnings[0]).toContain('is not valid YAML');
    expect(endpoints[0]?.probe.state).toBe('ready');
  });

  it('reports a path that is not a socket as an error', async () => {
    const file = join(scratch, 'plain-file');
    writeFileSync(file, '');
    const probe = await probeEndpoint({ endpoint: file, imageEndpoint: file }, 1000);
    expect(probe).toMatchObject({ state: 'error', message: `${file} exists but is not a socket.` });
  });
});
