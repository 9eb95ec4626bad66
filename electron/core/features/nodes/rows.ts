/**
 * Rows of a node's lists, each with a cheap version: what can change about a row as the
 * runtime reports it (a container's state; an image's tags and size). Ids, names, labels,
 * creation times are fixed for a row's life in the CRI, so two readings of a row with the
 * same version are the same row, and a re-list compares strings, not whole objects.
 */
import type { Container, Image, OnNode, PodSandbox } from '../../../../shared/model';

export function podVersion(pod: PodSandbox): string {
  return `${pod.state} ${pod.createdAt} ${pod.attempt}`;
}

export function containerVersion(container: Container): string {
  return `${container.state} ${container.createdAt} ${container.attempt} ${container.imageRef}`;
}

export function imageVersion(image: Image): string {
  return `${image.sizeBytes} ${image.pinned} ${image.repoTags.join(',')} ${image.repoDigests.join(',')} ${image.user ?? ''}`;
}

/** One list of a node's rows, by id, with their versions. */
export class RowTable<T extends { readonly id: string }> {
  private readonly rows = new Map<string, { row: OnNode<T>; version: string }>();

  constructor(private readonly versionOf: (row: T) => string) {}

  get size(): number {
    return this.rows.size;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  get(id: string): OnNode<T> | undefined {
    return this.rows.get(id)?.row;
  }

  values(): OnNode<T>[] {
    return [...this.rows.values()].map((entry) => entry.row);
  }

  /** Stores the row; true when it is new or its version moved (it must be sent). */
  put(row: OnNode<T>): boolean {
    const version = this.versionOf(row);
    const before = this.rows.get(row.id);
    this.rows.set(row.id, { row, version });
    return before?.version !== version;
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
