/**
 * The debug containers the user chose to keep after creating them, in the config
 * directory (`debug-kept.json`). A label can't carry that choice: the CRI has no call that
 * changes a container's labels once it is created (UpdateContainerResources changes only
 * resources), so `io.porthole.debug.keep` records only what was chosen at creation. The
 * file survives a restart of Porthole; a runtime restart keeps container ids, so it
 * survives that too. Entries of containers that are gone are dropped when a listing of
 * their node no longer finds them.
 */
import { join } from 'node:path';
import { readJsonFile, writeJsonFileAtomic } from '../../base/config';
import { logger } from '../../base/log';

export const keptFileName = 'debug-kept.json';

const keptLog = logger('debug');

/** How many kept containers are remembered at most (the oldest are forgotten first). */
const maxKept = 1000;

export class KeptStore {
  readonly path: string;
  private kept = new Set<string>();
  private readonly loaded: Promise<void>;
  /** The last write: the next one starts after it, whether or not it failed. */
  private writing: Promise<void> = Promise.resolve();

  constructor(configDir: string) {
    this.path = join(configDir, keptFileName);
    this.loaded = this.load();
  }

  /** Resolves once the file was read (a missing or unreadable file is an empty set). */
  ready(): Promise<void> {
    return this.loaded;
  }

  has(nodeId: string, containerId: string): boolean {
    return this.kept.has(keyOf(nodeId, containerId));
  }

  async set(nodeId: string, containerId: string, kept: boolean): Promise<void> {
    await this.loaded;
    const key = keyOf(nodeId, containerId);
    if (this.kept.has(key) === kept) return;
    if (kept) this.kept.add(key);
    else this.kept.delete(key);
    for (const oldest of this.kept) {
      if (this.kept.size <= maxKept) break;
      this.kept.delete(oldest);
    }
    await this.save();
  }

  /** Forgets the node's entries whose container is not among `present` (they are gone). */
  async prune(nodeId: string, present: ReadonlySet<string>): Promise<void> {
    await this.loaded;
    let changed = false;
    for (const key of [...this.kept]) {
      const [node, container] = splitKey(key);
      if (node === nodeId && !present.has(container)) {
        this.kept.delete(key);
        changed = true;
      }
    }
    if (changed) await this.save();
  }

  private async load(): Promise<void> {
    try {
      const raw = await readJsonFile(this.path);
      if (raw === undefined) return;
      const entries = (raw as { kept?: unknown }).kept;
      if (!Array.isArray(entries)) throw new Error('it has no "kept" list');
      for (const entry of entries) {
        const { nodeId, containerId } = (entry ?? {}) as Record<string, unknown>;
        if (typeof nodeId === 'string' && typeof containerId === 'string') {
          this.kept.add(keyOf(nodeId, containerId));
        }
      }
    } catch (error) {
      // Kept containers then show as leftovers: offered for removal, never removed unasked.
      keptLog.warn(
        `${this.path} could not be read: kept debug containers show as leftovers.`,
        error,
      );
      this.kept = new Set();
    }
  }

  private save(): Promise<void> {
    const kept = [...this.kept].map((key) => {
      const [nodeId, containerId] = splitKey(key);
      return { nodeId, containerId };
    });
    this.writing = this.writing
      .catch(() => undefined)
      .then(() => writeJsonFileAtomic(this.path, { version: 1, kept }));
    return this.writing;
  }
}

function keyOf(nodeId: string, containerId: string): string {
  return `${nodeId}\n${containerId}`;
}

function splitKey(key: string): [string, string] {
  const cut = key.indexOf('\n');
  return [key.slice(0, cut), key.slice(cut + 1)];
}
