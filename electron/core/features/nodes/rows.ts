/**
 * Rows of a node's lists, each compared by a cheap version: what can change about a row as
 * the runtime reports it (a container's state; an image's tags and size). Ids, names,
 * labels, creation times are fixed for a row's life in the CRI, so two readings of a row
 * with the same version are the same row, and a re-list compares a few fields, not whole
 * objects. The fields are compared where they are (no version string is kept per row: at
 * fleet size that was 50,000 strings, and one more made for every reading).
 */
import type { Container, Image, OnNode, PodSandbox } from '../../../../shared/model';

export function samePodVersion(a: PodSandbox, b: PodSandbox): boolean {
  return a.state === b.state && a.createdAt === b.createdAt && a.attempt === b.attempt;
}

export function sameContainerVersion(a: Container, b: Container): boolean {
  return (
    a.state === b.state &&
    a.createdAt === b.createdAt &&
    a.attempt === b.attempt &&
    a.imageRef === b.imageRef
  );
}

export function sameImageVersion(a: Image, b: Image): boolean {
  return (
    a.sizeBytes === b.sizeBytes &&
    a.pinned === b.pinned &&
    (a.user ?? '') === (b.user ?? '') &&
    sameStrings(a.repoTags, b.repoTags) &&
    sameStrings(a.repoDigests, b.repoDigests)
  );
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** One list of a node's rows, by id. */
export class RowTable<T extends { readonly id: string }> {
  private readonly rows = new Map<string, OnNode<T>>();

  constructor(private readonly sameVersion: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.rows.size;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  get(id: string): OnNode<T> | undefined {
    return this.rows.get(id);
  }

  values(): OnNode<T>[] {
    return [...this.rows.values()];
  }

  /** Stores the row; true when it is new or its version moved (it must be sent). */
  put(row: OnNode<T>): boolean {
    const before = this.rows.get(row.id);
    this.rows.set(row.id, row);
    return before === undefined || !this.sameVersion(before, row);
  }
  /** True when the row was there. */
  delete(id: string): boolean {
    return this.rows.delete(id);
  }

  /**
   * Replaces every row with a fresh reading: the rows that are new or changed, and the ids
   * that are gone.
   */
  replaceAll(next: readonly OnNode<T>[]): { upserted: OnNode<T>[]; removed: string[] } {
    const upserted: OnNode<T>[] = [];
    const seen = new Set<string>();
    for (const row of next) {
      seen.add(row.id);
      if (this.put(row)) upserted.push(row);
    }
    const removed: string[] = [];
    for (const id of this.rows.keys()) {
      if (!seen.has(id)) removed.push(id);
    }
    for (const id of removed) this.rows.delete(id);
    return { upserted, removed };
  }
}
