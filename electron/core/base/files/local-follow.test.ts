import {
  appendFileSync,
  mkdtempSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../../../shared/errors';
import { LocalFileFollower } from './local-follow';

let dir: string;
let followers: LocalFileFollower[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'porthole-follow-'));
});
afterEach(() => {
  for (const follower of followers) follower.dispose();
  followers = [];
  rmSync(dir, { recursive: true, force: true });
});

async function eventually(check: () => void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function follow(path: string, fromOffset = 0) {
  const seen: string[] = [];
  const rotations: string[] = [];
  const errors: AppError[] = [];
  const follower = new LocalFileFollower(
    path,
    {
      fromOffset,
      // Long: the test sees that fs.watch wakes the follower, not the poll.
      pollIntervalMs: 60_000,
      onRotate: (how) => rotations.push(how),
      onError: (error) => errors.push(error),
    },
    (chunk) => {
      seen.push(chunk.toString());
    },
  );
  followers.push(follower);
  return { text: () => seen.join(''), rotations, errors, follower };
}

describe('LocalFileFollower', () => {
  it('reads the file, then what is appended', async () => {
    const path = join(dir, '0.log');
    writeFileSync(path, 'one\ntwo\n');
    const followed = follow(path, 4);
    await eventually(() => expect(followed.text()).toBe('two\n'));
    appendFileSync(path, 'three\n');
    await eventually(() => expect(followed.text()).toBe('two\nthree\n'));
  });

  it('follows a rotation: the rest of the old file, then the new one', async () => {
    const path = join(dir, '0.log');
    writeFileSync(path, 'old 1\n');
    const followed = follow(path);
    await eventually(() => expect(followed.text()).toBe('old 1\n'));
    // As the kubelet does: rename away; the runtime writes on to the renamed file until
    // it reopens; then a new file at the path.
    renameSync(path, `${path}.20240501-120000`);
    appendFileSync(`${path}.20240501-120000`, 'old 2\n');
    await eventually(() => expect(followed.text()).toBe('old 1\nold 2\n'));
    writeFileSync(path, 'new 1\n');
    await eventually(() => expect(followed.text()).toBe('old 1\nold 2\nnew 1\n'));
    expect(followed.rotations).toEqual(['rotated']);
    appendFileSync(path, 'new 2\n');
    await eventually(() => expect(followed.text()).toBe('old 1\nold 2\nnew 1\nnew 2\n'));
  });

  it('reads a file truncated in place from its start', async () => {
    const path = join(dir, '0.log');
    writeFileSync(path, 'a long first line\n');
    const followed = follow(path);
    await eventually(() => expect(followed.text()).toBe('a long first line\n'));
    truncateSync(path, 0);
    appendFileSync(path, 'after\n');
    await eventually(() => expect(followed.text()).toBe('a long first line\nafter\n'));
    expect(followed.rotations).toEqual(['truncated']);
  });

  it('reports a file that is not there', async () => {
    const followed = follow(join(dir, 'missing.log'));
    await eventually(() => expect(followed.errors).toHaveLength(1));
    expect(followed.errors[0]).toMatchObject({ code: 'not-found' });
  });

  it('stops reading once disposed', async () => {
    const path = join(dir, '0.log');
    writeFileSync(path, 'x\n');
    const followed = follow(path);
    await eventually(() => expect(followed.text()).toBe('x\n'));
    followed.follower.dispose();
    appendFileSync(path, 'y\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(followed.text()).toBe('x\n');
  });
});
