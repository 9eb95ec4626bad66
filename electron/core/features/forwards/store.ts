import { join } from 'node:path';
import { z } from 'zod';
import { AppError, toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { ForwardSpec } from '../../../../shared/model';
import { readJsonFile, writeJsonFileAtomic } from '../../base/config';
import { parseForwardSpec } from './schema';

/** A forward the user saved: what forwards.json keeps of it. */
export interface SavedForward {
  readonly id: string;
  readonly nodeId: string;
  /** Its node's name when last saved: still shown once the node was removed. */
  readonly nodeName?: string;
  /** What the user called it; absent for the default description. */
  readonly name?: string;
  readonly spec: ForwardSpec;
  readonly autoStart: boolean;
}

const savedForwardSchema = z.strictObject({
  id: z.string().trim().min(1).max(200),
  nodeId: z.string().trim().min(1).max(4096),
  nodeName: z.string().trim().min(1).max(200).optional(),
  name: z.string().trim().min(1).max(200).optional(),
  // Checked by parseForwardSpec, with the engine's own rules.
  spec: z.unknown(),
  autoStart: z.boolean(),
});

const fileSchema = z.object({
  version: z.literal(1),
  forwards: z.array(z.unknown()),
});

/** `<configDir>/forwards.json`: `{ version: 1, forwards: [...] }`. */
export const forwardsFileName = 'forwards.json';

function parseSaved(value: unknown): SavedForward {
  const parsed = savedForwardSchema.safeParse(value);
  if (!parsed.success) {
    throw new AppError({ code: 'invalid-argument', message: z.prettifyError(parsed.error) });
  }
  const { name, nodeName, spec, ...rest } = parsed.data;
  return {
    ...rest,
    ...(nodeName !== undefined && { nodeName }),
    ...(name !== undefined && { name }),
    spec: parseForwardSpec(spec),
  };
}

/**
 * Saved forwards, persisted in the config directory. A malformed entry is skipped with a
 * warning, keeping the others. A file that is not a forwards file at all is left alone:
 * nothing is saved over it until the user fixes or moves it.
 */
export class ForwardStore {
  readonly path: string;
  private forwards: SavedForward[] = [];
  /** Why the file could not be read: saving is refused meanwhile, to not overwrite it. */
  private unreadable: AppErrorData | undefined;
  /** The last change: the next one starts after it, whether or not it failed. */
  private writing: Promise<void> = Promise.resolve();

  constructor(configDir: string) {
    this.path = join(configDir, forwardsFileName);
  }

  /** Reads the file; never rejects. Returns what was skipped, as sentences. */
  async load(): Promise<{ warnings: string[] }> {
    const warnings: string[] = [];
    let raw: unknown;
    try {
      raw = await readJsonFile(this.path);
    } catch (error) {
      this.unreadable = toAppErrorData(error);
      return { warnings: [this.unreadable.message] };
    }
    if (raw === undefined) {
      this.forwards = [];
      return { warnings };
    }
    const file = fileSchema.safeParse(raw);
    if (!file.success) {
      this.unreadable = {
        code: 'failed-precondition',
        message: `${this.path} is not a Porthole forwards file.`,
        detail: z.prettifyError(file.error),
        hint: 'Fix or move the file away; Porthole then starts with no saved forwards.',
      };
      return { warnings: [this.unreadable.message] };
    }
    const forwards: SavedForward[] = [];
    const seen = new Set<string>();
    file.data.forwards.forEach((entry, index) => {
      try {
        const saved = parseSaved(entry);
        if (seen.has(saved.id)) throw new Error(`the id ${saved.id} is used twice`);
        seen.add(saved.id);
        forwards.push(saved);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        warnings.push(`${this.path}: forward ${index} was skipped (${why}).`);
      }
    });
    this.forwards = forwards;
    return { warnings };
  }

  list(): readonly SavedForward[] {
    return this.forwards;
  }

  /** Adds or replaces (by id). */
  save(forward: SavedForward): Promise<void> {
    return this.update((forwards) => {
      const index = forwards.findIndex((existing) => existing.id === forward.id);
      if (index === -1) return [...forwards, forward];
      return forwards.map((existing, i) => (i === index ? forward : existing));
    });
  }

  remove(id: string): Promise<void> {
    return this.update((forwards) => forwards.filter((existing) => existing.id !== id));
  }

  /**
   * Changes run one after another, each on the result of the previous one, so two quick
   * saves can't lose each other's forward; the list changes only once the file is written.
   */
  private update(change: (forwards: readonly SavedForward[]) => SavedForward[]): Promise<void> {
    const unreadable = this.unreadable;
    if (unreadable !== undefined) {
      return Promise.reject(
        new AppError({
          code: 'failed-precondition',
          message: `Porthole can't save forwards: ${unreadable.message}`,
          ...(unreadable.detail !== undefined && { detail: unreadable.detail }),
          hint: `Fix or move ${this.path} away, then restart Porthole. Unsaved forwards still work.`,
        }),
      );
    }
    const run = this.writing.then(async () => {
      const next = change(this.forwards);
      await writeJsonFileAtomic(this.path, { version: 1, forwards: next });
      this.forwards = next;
    });
    // The caller hears the failure through `run`; the chain only orders the writes.
    this.writing = run.catch(() => undefined);
    return run;
  }
}
