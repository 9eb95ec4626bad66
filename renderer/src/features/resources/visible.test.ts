import { describe, expect, it } from 'vitest';
import { emptyFilter } from './filter';
import type { PodRow } from './model';
import { refines } from './visible';

const sorted: PodRow[] = [];
const last = {
  sorted,
  total: 0,
  filter: { ...emptyFilter, text: 'web' },
  nodeId: undefined,
  result: { rows: [] as PodRow[] },
};

describe('refines', () => {
  it('reuses the last answer when the text only grows', () => {
    expect(refines(last, sorted, { ...emptyFilter, text: 'web-1' }, undefined)).toBe(true);
    expect(refines(last, sorted, { ...emptyFilter, text: 'WEB x' }, undefined)).toBe(true);
  });

  it('starts over when anything else changed', () => {
    expect(refines(last, sorted, { ...emptyFilter, text: 'we' }, undefined)).toBe(false);
    expect(refines(last, [], { ...emptyFilter, text: 'web-1' }, undefined)).toBe(false);
    expect(
      refines(last, sorted, { ...emptyFilter, text: 'web-1', state: 'ready' }, undefined),
    ).toBe(false);
    expect(refines(last, sorted, { ...emptyFilter, text: 'web-1' }, 'n1')).toBe(false);
    expect(refines(last, sorted, { ...emptyFilter, text: 'web-1', node: 'eu' }, undefined)).toBe(
      false,
    );
    expect(
      refines({ ...last, filter: emptyFilter }, sorted, { ...emptyFilter, text: 'a' }, undefined),
    ).toBe(false);
    expect(
      refines(
        { ...last, result: { rows: [], error: 'bad selector' } },
        sorted,
        { ...emptyFilter, text: 'web-1' },
        undefined,
      ),
    ).toBe(false);
  });
});
