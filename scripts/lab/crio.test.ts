import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRIO_DIR_VARIABLE, findCrio } from './crio';

let root: string;

async function program(path: string): Promise<void> {
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'porthole-crio-find-'));
  // A checkout with the copy beside it, and one without.
  await mkdir(join(root, 'with', 'repo'), { recursive: true });
  await mkdir(join(root, 'with', 'shared', 'bin', 'cri-o'), { recursive: true });
  for (const name of ['crio', 'pinns', 'copyimg']) {
    await program(join(root, 'with', 'shared', 'bin', 'cri-o', name));
  }
  await mkdir(join(root, 'without', 'repo'), { recursive: true });
  // A linked worktree of the first checkout, elsewhere.
  await mkdir(join(root, 'with', 'repo', '.git', 'worktrees', 'w'), { recursive: true });
  await mkdir(join(root, 'wt', 'w'), { recursive: true });
  await writeFile(
    join(root, 'wt', 'w', '.git'),
    `gitdir: ${join(root, 'with', 'repo', '.git', 'worktrees', 'w')}\n`,
  );
  // A directory of one's own, with crio and pinns only.
  await mkdir(join(root, 'mine'));
  await program(join(root, 'mine', 'crio'));
  await program(join(root, 'mine', 'pinns'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const noPath = { PATH: '/nonexistent' };

describe('findCrio', () => {
  it('takes the setting first, with skopeo doing the imports where copyimg is missing', async () => {
    const found = await findCrio({
      env: { ...noPath, [CRIO_DIR_VARIABLE]: join(root, 'mine') },
      repoRoot: join(root, 'with', 'repo'),
    });
    expect(found).toEqual({
      found: true,
      programs: {
        crio: join(root, 'mine', 'crio'),
        pinns: join(root, 'mine', 'pinns'),
        from: `${CRIO_DIR_VARIABLE}=${join(root, 'mine')}`,
      },
    });
  });

  it('refuses a setting that names no crio', async () => {
    await expect(
      findCrio({ env: { ...noPath, [CRIO_DIR_VARIABLE]: join(root, 'without') } }),
    ).rejects.toThrow(/holds no executable crio/);
  });

  it('finds crio on PATH before the copy beside the project', async () => {
    const found = await findCrio({
      env: { PATH: join(root, 'mine') },
      repoRoot: join(root, 'with', 'repo'),
    });
    expect(found).toMatchObject({ found: true, programs: { from: 'PATH' } });
  });

  it('uses the copy beside the project, also from a linked worktree', async () => {
    const copy = join(root, 'with', 'shared', 'bin', 'cri-o');
    for (const repoRoot of [join(root, 'with', 'repo'), join(root, 'wt', 'w')]) {
      expect(await findCrio({ env: noPath, repoRoot })).toEqual({
        found: true,
        programs: {
          crio: join(copy, 'crio'),
          pinns: join(copy, 'pinns'),
          copyimg: join(copy, 'copyimg'),
          from: copy,
        },
      });
    }
  });

  it('says in one line where it looked when there is none', async () => {
    const lookup = await findCrio({ env: noPath, repoRoot: join(root, 'without', 'repo') });
    expect(lookup).toEqual({
      found: false,
      reason: `no crio binary (${CRIO_DIR_VARIABLE} is not set, none on PATH, none in ${join(root, 'without', 'shared', 'bin', 'cri-o')})`,
    });
  });
});
