import { chmod, chown, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverEndpoints } from './discovery';
import { labStateFile, parseLabState, readLabState } from './lab-state';

const lab = (endpoint: string): string =>
  JSON.stringify({
    labDir: '/x',
    runtimes: [{ id: 'containerd-2', endpoint, socketPath: endpoint.slice(7) }],
    images: {},
  });

describe('the lab state file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-labstate-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lives in PORTHOLE_LAB_DIR, /tmp/porthole-lab by default', () => {
    expect(labStateFile({})).toBe('/tmp/porthole-lab/lab.json');
    expect(labStateFile({ PORTHOLE_LAB_DIR: '/tmp/phl7/' })).toBe('/tmp/phl7/lab.json');
  });

  it('reads the runtimes, skipping entries without an endpoint', () => {
    expect(
      parseLabState(
        JSON.stringify({ runtimes: [{ id: 'a', endpoint: 'unix:///a.sock' }, { id: 'b' }] }),
        'f',
      ),
    ).toEqual({ state: 'loaded', runtimes: [{ id: 'a', endpoint: 'unix:///a.sock' }] });
    expect(parseLabState('{', 'f').state).toBe('invalid');
    expect(parseLabState('{"runtimes": 3}', 'f').state).toBe('invalid');
  });

  it('is absent when there is no file, and ignored when others could have written it', async () => {
    const file = join(dir, 'lab.json');
    expect(await readLabState(file)).toEqual({ state: 'absent' });
    await writeFile(file, lab('unix:///run/a.sock'));
    expect((await readLabState(file)).state).toBe('loaded');
    await chmod(file, 0o666);
    expect(await readLabState(file)).toMatchObject({
      state: 'invalid',
      message: expect.stringMatching(/ignored: others may write/) as string,
    });
    await chmod(file, 0o644);
    await chmod(dir, 0o777);
    expect((await readLabState(file)).state).toBe('invalid');
    await chmod(dir, 0o700);
    const link = join(dir, 'link.json');
    await symlink(file, link);
    expect(await readLabState(link)).toMatchObject({
      message: expect.stringMatching(/symlink/) as string,
    });
  });

  it.runIf(process.getuid?.() === 0)('is ignored when another user owns it', async () => {
    const file = join(dir, 'lab.json');
    await writeFile(file, lab('unix:///run/a.sock'));
    await chown(file, 4242, 4242);
    expect(await readLabState(file)).toMatchObject({
      message: expect.stringMatching(/belongs to another user/) as string,
    });
  });

  it('makes Discover probe the lab runtimes and say where it looked', async () => {
    const file = join(dir, 'lab.json');
    const socket = join(dir, 'gone.sock');
    await writeFile(file, lab(`unix://${socket}`));
    const result = await discoverEndpoints({
      env: {},
      crictlConfigPath: join(dir, 'crictl.yaml'),
      labStatePath: file,
      probeTimeoutMs: 500,
    });
    expect(result.endpoints[0]).toMatchObject({
      endpoint: `unix://${socket}`,
      source: 'lab',
      origin: 'lab containerd-2',
      probe: { state: 'absent' },
    });
    expect(result.sources).toEqual([
      { source: 'environment', where: 'CONTAINER_RUNTIME_ENDPOINT', outcome: 'unset' },
      { source: 'crictl-config', where: join(dir, 'crictl.yaml'), outcome: 'unset' },
      { source: 'lab', where: file, outcome: 'used' },
    ]);
  });
});
