import type { StatsSample } from '../../../../shared/model';

/**
 * A node's recent samples, oldest first, bounded two ways: by age (what a chart opened
 * later shows) and by count (so a clock jump or a tiny interval can't grow it unbounded).
 */
export class SampleHistory {
  private samples: StatsSample[] = [];

  constructor(
    readonly maxAgeMs: number,
    readonly maxCount: number,
  ) {}

  add(sample: StatsSample): void {
    const last = this.samples[this.samples.length - 1];
    // The clock went back: older samples would sit "in the future" and never age out.
    if (last !== undefined && last.at > sample.at) this.samples = [];
    this.samples.push(sample);
    const oldest = sample.at - this.maxAgeMs;
    let drop = Math.max(0, this.samples.length - this.maxCount);
    while ((this.samples[drop]?.at ?? Infinity) < oldest) drop += 1;
    if (drop > 0) this.samples = this.samples.slice(drop);
  }

  /** A copy, oldest first. */
  list(): readonly StatsSample[] {
    return [...this.samples];
  }

  get length(): number {
    return this.samples.length;
  }
}
