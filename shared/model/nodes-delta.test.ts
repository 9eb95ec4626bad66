import { describe, expect, it } from 'vitest';
import type { NodeStatus } from './node';
import { applyNodesDelta, nodesReset } from './nodes-delta';

function status(nodeId: string, state: NodeStatus['state'] = 'disconnected'): NodeStatus {
  return { nodeId, name: nodeId, state } as NodeStatus;
}

const ids = (list: readonly NodeStatus[]) => list.map((node) => `${node.nodeId}:${node.state}`);

describe('applyNodesDelta', () => {
  it('replaces changed nodes in place, adds new ones last, drops removed ones', () => {
    let list = applyNodesDelta([], nodesReset([status('a'), status('b'), status('c')]));
    const before = list;
    list = applyNodesDelta(list, {
      reset: false,
      upserted: [status('b', 'connecting')],
      removed: [],
    });
    expect(ids(list)).toEqual(['a:disconnected', 'b:connecting', 'c:disconnected']);
    // The list it was made from is left as it was.
    expect(ids(before)).toEqual(['a:disconnected', 'b:disconnected', 'c:disconnected']);
    // Made from a list made in place: the positions still hold.
    list = applyNodesDelta(list, {
      reset: false,
      upserted: [status('c', 'connected'), status('b', 'connected')],
      removed: [],
    });
    expect(ids(list)).toEqual(['a:disconnected', 'b:connected', 'c:connected']);
    list = applyNodesDelta(list, {
      reset: false,
      upserted: [status('d'), status('a', 'failed')],
      removed: [],
    });
    expect(ids(list)).toEqual(['a:failed', 'b:connected', 'c:connected', 'd:disconnected']);
    list = applyNodesDelta(list, { reset: false, upserted: [], removed: ['b'] });
    list = applyNodesDelta(list, {
      reset: false,
      upserted: [status('d', 'connected')],
      removed: [],
    });
    expect(ids(list)).toEqual(['a:failed', 'c:connected', 'd:connected']);
    const same = applyNodesDelta(list, { reset: false, upserted: [], removed: [] });
    expect(same).toBe(list);
  });
});
