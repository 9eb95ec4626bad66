import { describe, expect, it } from 'vitest';
import {
  neighbour,
  pane,
  paneIds,
  paneRects,
  removePane,
  resizeSplit,
  splitPane,
  type LayoutNode,
} from './layout';

function ids(): () => string {
  let next = 1;
  return () => `s${next++}`;
}

describe('layout', () => {
  it('splits a pane into two, then adds siblings in the same direction', () => {
    const newId = ids();
    let layout: LayoutNode = pane('a');
    layout = splitPane(layout, 'a', 'b', 'right', newId);
    expect(layout).toEqual({
      kind: 'split',
      id: 's1',
      direction: 'right',
      children: [pane('a'), pane('b')],
      sizes: [0.5, 0.5],
    });
    layout = splitPane(layout, 'a', 'c', 'right', newId);
    expect(paneIds(layout)).toEqual(['a', 'c', 'b']);
    expect(layout.kind === 'split' && layout.sizes).toEqual([0.25, 0.25, 0.5]);
  });

  it('nests a split in the other direction', () => {
    const newId = ids();
    let layout: LayoutNode = splitPane(pane('a'), 'a', 'b', 'right', newId);
    layout = splitPane(layout, 'b', 'c', 'down', newId);
    expect(paneIds(layout)).toEqual(['a', 'b', 'c']);
    expect(layout.kind === 'split' && layout.children[1]).toMatchObject({
      kind: 'split',
      direction: 'down',
      children: [pane('b'), pane('c')],
    });
  });

  it('removes panes, giving their space back and folding single children', () => {
    const newId = ids();
    let layout: LayoutNode = splitPane(pane('a'), 'a', 'b', 'right', newId);
    layout = splitPane(layout, 'b', 'c', 'down', newId);
    const withoutC = removePane(layout, 'c');
    expect(withoutC).toEqual({
      kind: 'split',
      id: 's1',
      direction: 'right',
      children: [pane('a'), pane('b')],
      sizes: [0.5, 0.5],
    });
    expect(removePane(withoutC as LayoutNode, 'a')).toEqual(pane('b'));
    expect(removePane(pane('b'), 'b')).toBeUndefined();
  });

  it('folds a nested split of the same direction into its parent', () => {
    const newId = ids();
    // a | (b / (c | d)): removing b leaves a | c | d.
    let layout: LayoutNode = splitPane(pane('a'), 'a', 'b', 'right', newId);
    layout = splitPane(layout, 'b', 'c', 'down', newId);
    layout = splitPane(layout, 'c', 'd', 'right', newId);
    const after = removePane(layout, 'b') as LayoutNode;
    expect(after.kind === 'split' && after.direction).toBe('right');
    expect(after.kind === 'split' && after.children).toEqual([pane('a'), pane('c'), pane('d')]);
    expect(after.kind === 'split' && after.sizes.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
  });

  it('resizes a split, normalised and never below the minimum', () => {
    const layout = splitPane(pane('a'), 'a', 'b', 'right', () => 's');
    const resized = resizeSplit(layout, 's', [0.99, 0.01]);
    expect(resized.kind === 'split' && resized.sizes[1]).toBeGreaterThan(0.04);
    expect(resized.kind === 'split' && resized.sizes.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
  });

  it('finds the pane in a direction by geometry', () => {
    const newId = ids();
    // a | (b / c)
    let layout: LayoutNode = splitPane(pane('a'), 'a', 'b', 'right', newId);
    layout = splitPane(layout, 'b', 'c', 'down', newId);
    expect(paneRects(layout).get('c')).toEqual({ left: 0.5, right: 1, top: 0.5, bottom: 1 });
    expect(neighbour(layout, 'a', 'right')).toBe('b');
    expect(neighbour(layout, 'c', 'left')).toBe('a');
    expect(neighbour(layout, 'b', 'down')).toBe('c');
    expect(neighbour(layout, 'c', 'up')).toBe('b');
    expect(neighbour(layout, 'a', 'left')).toBeUndefined();
    expect(neighbour(layout, 'b', 'up')).toBeUndefined();
  });
});
