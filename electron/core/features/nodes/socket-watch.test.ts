import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchSocketCreated } from './socket-watch';

describe('watchSocketCreated', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'porthole-socket-watch-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hears the socket being created, not other files', async () => {
    const listener = vi.fn();
    const watch = watchSocketCreated(join(dir, 'containerd.sock'), listener);
    await writeFile(join(dir, 'other'), '');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'containerd.sock'), resolve));
    try {
      await vi.waitFor(() => expect(listener).toHaveBeenCalled());
      expect(listener.mock.calls.length).toBeGreaterThan(0);
    } finally {
      watch.dispose();
      server.close();
    }
  });

  it('reports nothing, and does not throw, for a directory that is not there', () => {
    const watch = watchSocketCreated(join(dir, 'missing', 'containerd.sock'), () => undefined);
    watch.dispose();
  });
});
