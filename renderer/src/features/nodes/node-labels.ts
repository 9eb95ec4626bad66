import type { NodeStatus } from '../../../../shared/model';

/**
 * Short labels for a table's Node column: the words in which the names differ. Two lab
 * nodes "lab containerd-1.6" and "lab containerd-2" become "containerd-1.6" and
 * "containerd-2", which fit a narrow column where both would read "lab container…".
 * Words every name starts or ends with are dropped; a bracket left open by that is
 * dropped too. A name with nothing left (all names alike, or only one) stays whole.
 */
export function shortNodeLabels(names: readonly string[]): string[] {
  if (names.length < 2) return [...names];
  const words = names.map((name) => name.trim().split(/\s+/));
  const shortest = Math.min(...words.map((list) => list.length));
  const same = (pick: (list: readonly string[]) => string | undefined): boolean => {
    const first = pick(words[0] ?? []);
    return first !== undefined && words.every((list) => pick(list) === first);
  };
  let head = 0;
  while (head < shortest && same((list) => list[head])) head += 1;
  let tail = 0;
  while (tail < shortest - head && same((list) => list[list.length - 1 - tail])) tail += 1;
  return names.map((name, index) => {
    const list = words[index] ?? [];
    const label = unbracket(list.slice(head, list.length - tail).join(' '));
    return label === '' ? name : label;
  });
}

/** "(lab" → "lab", "x)" → "x", "(a b)" stays: brackets cut in half by the word split go. */
function unbracket(text: string): string {
  let result = text;
  const pairs = [
    ['(', ')'],
    ['[', ']'],
  ] as const;
  for (const [open, close] of pairs) {
    const opens = result.split(open).length - 1;
    const closes = result.split(close).length - 1;
    if (opens > closes && result.startsWith(open)) result = result.slice(1);
    if (closes > opens && result.endsWith(close)) result = result.slice(0, -1);
  }
  return result.trim();
}

const cache = new WeakMap<readonly NodeStatus[], ReadonlyMap<string, string>>();

/** Each node's short label, by node id; computed once per node list. */
export function nodeLabels(nodes: readonly NodeStatus[]): ReadonlyMap<string, string> {
  let labels = cache.get(nodes);
  if (labels === undefined) {
    const short = shortNodeLabels(nodes.map((node) => node.name));
    labels = new Map(nodes.map((node, index) => [node.nodeId, short[index] ?? node.name]));
    cache.set(nodes, labels);
  }
  return labels;
}
