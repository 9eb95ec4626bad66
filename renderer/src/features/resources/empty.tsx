import type { ReactNode } from 'react';
import { useModel, useNodes, useResources, useResourceViews } from '../../app/context';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState, NoMatchesState } from '../../ui/EmptyState';
import { formatCount } from '../../ui/format';
import { connectNode } from '../nodes/actions';
import { NoNodeState } from '../nodes/NoNodeState';
import { downNodesInScope } from '../nodes/nodes-store';
import { hiddenText } from '../nodes/outage';
import { isFiltered } from './filter';
import type { ResourceKindView } from './kinds';
import type { ResourceKind } from './model';
import { useHiddenCounts } from './use-rows';

/** Why a resource table is empty, and what to do about it: never just a blank area. */
export function useEmptyState<K extends ResourceKind>(
  view: ResourceKindView<K>,
  total: number,
): ReactNode {
  const model = useModel();
  const { kind, nouns } = view;
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const loaded = useResources((state) => state.loaded);
  const filter = useResourceViews((state) => state.byKind[kind].filter);
  const hidden = useHiddenCounts(kind);
  const [singular, plural] = nouns;
  const connected = nodes.filter((node) => node.state === 'connected');
  const scoped =
    scope.kind === 'node' ? nodes.find((node) => node.nodeId === scope.nodeId) : undefined;
  const down = downNodesInScope(nodes, scope);

  // A node that can't be reached has unknown contents, not none (its banner says more).
  const onlyDown = down.length > 0 && (scoped !== undefined || connected.length === 0);
  if (onlyDown) {
    const [first] = down;
    return (
      <EmptyState
        icon="unplug"
        title={
          down.length === 1 && first !== undefined ? `${first.name} is down` : 'No node answers'
        }
      >
        {down.length === 1 && first !== undefined
          ? `${hiddenText(hidden.get(first.nodeId) ?? 0, nouns)} Porthole is reconnecting.`
          : `Porthole is reconnecting to ${down.map((node) => node.name).join(', ')}.`}
      </EmptyState>
    );
  }
  if (scoped !== undefined && scoped.state !== 'connected') {
    return (
      <EmptyState
        icon="unplug"
        title={`${scoped.name} is not connected`}
        actions={
          <>
            <Button variant="primary" icon="plug" onClick={() => void connectNode(model, scoped)}>
              Connect
            </Button>
            <Button onClick={() => model.nodes.getState().setScope({ kind: 'all' })}>
              Show all nodes
            </Button>
          </>
        }
      >
        Connect it to see its {plural}, or pick another node at the top.
      </EmptyState>
    );
  }
  if (connected.length === 0) {
    return (
      <NoNodeState>
        Connect a node on the Nodes page to see its {plural}. No cluster at hand? Start the lab with{' '}
        <code>npm run lab -- up</code>.
      </NoNodeState>
    );
  }
  const waiting =
    scope.kind === 'node'
      ? !loaded.has(scope.nodeId)
      : connected.every((node) => !loaded.has(node.nodeId));
  if (waiting) return <LoadingState>Reading {plural} from the runtime…</LoadingState>;
  if (total > 0 && isFiltered(filter)) {
    return (
      <NoMatchesState
        plural={plural}
        hidden={`${formatCount(total)} ${total === 1 ? singular : plural}`}
        onClear={() => model.resourceViews.getState().clearFilter(kind)}
      />
    );
  }
  if (down.length > 0) {
    // Some nodes answer and have none; the others' rows are held back until they are back.
    return (
      <EmptyState icon={view.icon} title={`No ${plural} to show`}>
        None on {connected.map((node) => node.name).join(', ')}.{' '}
        {down.map((node) => node.name).join(', ')} {down.length === 1 ? 'is' : 'are'} down: {plural}{' '}
        there show again once Porthole has reconnected.
      </EmptyState>
    );
  }
  const where =
    scoped?.name ?? (connected.length === 1 ? connected[0]?.name : 'the connected nodes');
  return (
    <EmptyState
      icon={view.icon}
      title={`No ${plural} on ${where ?? 'this node'}`}
      actions={<view.Create primary />}
    >
      {view.noneText}
    </EmptyState>
  );
}
