import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  captureWindowState,
  defaultWindowState,
  loadWindowState,
  saveWindowState,
  windowStatePath,
} from './window-state';

vi.mock('electron', () => ({}));

const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];

describe('window state', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-window-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('starts with the default size when nothing was saved', async () => {
    expect(await loadWindowState(dir, screen)).toEqual(defaultWindowState);
  });

  it('remembers position, size and maximized', async () => {
    const state = { x: 100, y: 50, width: 1000, height: 700, maximized: true };
    await saveWindowState(dir, state);
    expect(await loadWindowState(dir, screen)).toEqual(state);
  });

  it('forgets a position that is on no display any more, keeping the size', async () => {
    await saveWindowState(dir, { x: 3000, y: 50, width: 1000, height: 700, maximized: false });
    expect(await loadWindowState(dir, screen)).toEqual({
      width: 1000,
      height: 700,
      maximized: false,
    });
  });

  it('ignores a corrupt or nonsensical file', async () => {
    await writeFile(windowStatePath(dir), '{"width": 5, "height": "x"}');
    expect(await loadWindowState(dir, screen)).toEqual(defaultWindowState);
    await writeFile(windowStatePath(dir), 'not json');
    expect(await loadWindowState(dir, screen)).toEqual(defaultWindowState);
  });

  it('captures the normal bounds, never smaller than the minimum', () => {
    const window = {
      getNormalBounds: () => ({ x: 1, y: 2, width: 100, height: 900 }),
      isMaximized: () => false,
    };
    expect(captureWindowState(window)).toEqual({
      x: 1,
      y: 2,
      width: 640,
      height: 900,
      maximized: false,
    });
  });
});
