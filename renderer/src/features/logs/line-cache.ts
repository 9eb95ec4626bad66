/**
 * The lines of one log view the UI holds: pages fetched from the core as the list
 * scrolls, a bounded number kept (the farthest from what was last asked for go first).
 */
import { Emitter } from '../../../../shared/event';
import type { LogLine } from '../../../../shared/model';

export const pageSize = 250;
const maxPages = 64;

export type FetchLines = (
  from: number,
  count: number,
) => Promise<{ readonly lines: readonly LogLine[]; readonly total: number }>;

export class LineCache {
  private readonly pages = new Map<number, readonly LogLine[]>();
  /** Pages shown as they are until their refetch arrives (the log grew past them). */
  private readonly stale = new Set<number>();
  /** Pages being fetched, each with its request's token (a newer request wins). */
  private readonly loading = new Map<number, number>();
  private nextToken = 0;
  private readonly changes = new Emitter<void>();
  /** Bumped on every change: what useSyncExternalStore compares. */
  version = 0;
  private lastPage = 0;

  constructor(
    private readonly fetchLines: FetchLines,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  get(index: number): LogLine | undefined {
    return this.pages.get(Math.floor(index / pageSize))?.[index % pageSize];
  }

  /** Fetches what is missing of lines [from, to). */
  ensure(from: number, to: number): void {
    if (to <= from) return;
    const first = Math.floor(Math.max(0, from) / pageSize);
    const last = Math.floor((to - 1) / pageSize);
    this.lastPage = first;
    for (let page = first; page <= last; page += 1) {
      const held = this.pages.get(page);
      // A short page (the end of the log as it was) is fetched again once asked past it.
      const complete =
        held !== undefined && !this.stale.has(page) && (held.length === pageSize || page === last);
      if (complete || this.loading.has(page)) continue;
      this.load(page);
    }
  }

  /**
   * The log grew: the page holding line `index` and those after it are fetched again.
   * Lines already held stay on screen meanwhile (lines never change once written).
   */
  invalidateFrom(index: number): void {
    const first = Math.floor(Math.max(0, index) / pageSize);
    for (const page of this.pages.keys()) if (page >= first) this.stale.add(page);
    for (const page of [...this.loading.keys()]) if (page >= first) this.loading.delete(page);
  }

  /** Forgets everything (another view, lines dropped at the start). */
  reset(): void {
    this.pages.clear();
    this.stale.clear();
    this.loading.clear();
    this.changed();
  }

  /** useSyncExternalStore's shape: returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    const subscription = this.changes.event(listener);
    return () => subscription.dispose();
  }

  private load(page: number): void {
    const token = (this.nextToken += 1);
    this.loading.set(page, token);
    const current = (): boolean => this.loading.get(page) === token;
    this.fetchLines(page * pageSize, pageSize).then(
      ({ lines }) => {
        if (!current()) return;
        this.loading.delete(page);
        this.stale.delete(page);
        this.pages.set(page, lines);
        this.evict();
        this.changed();
      },
      (error: unknown) => {
        if (!current()) return;
        this.loading.delete(page);
        this.onError(error);
      },
    );
  }

  private evict(): void {
    if (this.pages.size <= maxPages) return;
    const byDistance = [...this.pages.keys()].sort(
      (a, b) => Math.abs(b - this.lastPage) - Math.abs(a - this.lastPage),
    );
    for (const page of byDistance.slice(0, this.pages.size - maxPages)) {
      this.pages.delete(page);
      this.stale.delete(page);
    }
  }

  private changed(): void {
    this.version += 1;
    this.changes.fire();
  }
}
