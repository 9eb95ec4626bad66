import { useNodes, useResources } from '../../app/context';
import type { ViewDefinition } from '../../app/registry';
import { resourceKindViews } from './kinds';
import type { ResourceKind } from './model';
import { ResourceView } from './ResourceView';
import { useHiddenCounts } from './use-rows';

/** The rows a table would show: in scope, and not of a node that is down (hidden). */
function useScopedCount(kind: ResourceKind): number | undefined {
  const scope = useNodes((state) => state.scope);
  const hidden = useHiddenCounts(kind);
  const count = useResources((state) => {
    const map = state.index[kind];
    if (state.loaded.size === 0) return undefined;
    if (scope.kind === 'all') return map.size;
    let n = 0;
    for (const item of map.values()) if (item.nodeId === scope.nodeId) n += 1;
    return n;
  });
  if (count === undefined) return undefined;
  let held = 0;
  for (const [nodeId, n] of hidden) {
    if (scope.kind === 'all' || scope.nodeId === nodeId) held += n;
  }
  return count - held;
}

/** A kind's screen in the sidebar's Workloads section, with its count. */
function resourceScreen(kind: ResourceKind): ViewDefinition {
  const { title, icon } = resourceKindViews[kind];
  return {
    id: kind,
    title,
    section: 'Workloads',
    icon,
    component: () => <ResourceView kind={kind} />,
    useCount: () => useScopedCount(kind),
  };
}

export const podsView = resourceScreen('pods');
export const containersView = resourceScreen('containers');
export const imagesView = resourceScreen('images');
