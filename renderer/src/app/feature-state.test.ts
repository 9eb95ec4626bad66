import { describe, expect, it } from 'vitest';
import { fakeEvents, fakeServices } from '../../../shared/contract/testing';
import { createInMemoryPorthole } from '../platform';
import { FeatureState } from './feature-state';
import { createAppModel } from './model';

function newModel() {
  return createAppModel(createInMemoryPorthole(fakeServices(), fakeEvents()));
}

describe('feature state', () => {
  it('is made once per model, on first use, and disposed with it, newest first', () => {
    const disposed: string[] = [];
    const made: string[] = [];
    const state = (name: string) =>
      new FeatureState(name, () => {
        made.push(name);
        return { name, dispose: () => disposed.push(name) };
      });
    const first = state('first');
    const second = state('second');
    const model = newModel();
    const other = newModel();

    expect(made).toEqual([]);
    const a = model.featureState(first);
    expect(model.featureState(first)).toBe(a);
    expect(a.name).toBe('first');
    expect(other.featureState(first)).not.toBe(a);
    model.featureState(second);
    expect(made).toEqual(['first', 'first', 'second']);

    model.dispose();
    expect(disposed).toEqual(['second', 'first']);
    other.dispose();
    expect(disposed).toEqual(['second', 'first', 'first']);
  });

  it('refuses two keys of one name in a model', () => {
    const model = newModel();
    const make = () => ({ dispose() {} });
    model.featureState(new FeatureState('logs', make));
    expect(() => model.featureState(new FeatureState('logs', make))).toThrow(/named "logs"/);
    model.dispose();
  });
});
