import { useCallback } from 'react';
import type { NodeStatus } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { StateBadge } from '../../ui/Badge';
import { Combobox } from '../../ui/Combobox';
import { formatCount } from '../../ui/format';
import { searchNodes, sortedByName } from './fleet';
import { nodeOptionLabel, type NodeScope } from './nodes-store';

/** A choice in the node selector: every connected node, or one node. */
type ScopeOption =
  | { readonly kind: 'all'; readonly connected: number }
  | { readonly kind: 'node'; readonly node: NodeStatus };

const allKey = '\u0000all';

/** One option per node object, so an unchanged node's option is the same object. */
const nodeOptions = new WeakMap<NodeStatus, ScopeOption>();

function nodeOption(node: NodeStatus): ScopeOption {
  let option = nodeOptions.get(node);
  if (option === undefined) nodeOptions.set(node, (option = { kind: 'node', node }));
  return option;
}

function scopeOptionKey(option: ScopeOption): string {
  return option.kind === 'all' ? allKey : option.node.nodeId;
}

function allText(connected: number): string {
  return `All connected nodes (${formatCount(connected)})`;
}

function scopeOptionText(option: ScopeOption): string {
  return option.kind === 'all' ? allText(option.connected) : nodeOptionLabel(option.node);
}

function ScopeOptionView({ option }: { option: ScopeOption }) {
  if (option.kind === 'all') {
    return <span className="node-option-name">{allText(option.connected)}</span>;
  }
  const { node } = option;
  return (
    <>
      <span className="node-option-name">{node.name}</span>
      <span className="node-option-endpoint">{node.endpoint}</span>
      {node.state !== 'connected' && <StateBadge state={node.state} />}
    </>
  );
}

const renderScopeOption = (option: ScopeOption) => <ScopeOptionView option={option} />;

function connectedCount(nodes: readonly NodeStatus[]): number {
  let count = 0;
  for (const node of nodes) if (node.state === 'connected') count += 1;
  return count;
}

/**
 * The top bar's node selector: every connected node, or one node (connected or not),
 * searchable by name, endpoint or state. With nothing typed it lists "all" first, then
 * the nodes by name; typing drops "all" so that Enter takes the best match.
 */
export function NodeScopePicker({ id }: { id: string }) {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const connected = connectedCount(nodes);
  const search = useCallback(
    (query: string): readonly ScopeOption[] => {
      const found = searchNodes(sortedByName(nodes), query).map(nodeOption);
      return query.trim() === ''
        ? [{ kind: 'all', connected: connectedCount(nodes) }, ...found]
        : found;
    },
    [nodes],
  );
  const current =
    scope.kind === 'node' ? nodes.find((node) => node.nodeId === scope.nodeId) : undefined;
  const valueText =
    scope.kind === 'all'
      ? allText(connected)
      : current === undefined
        ? 'A removed node'
        : nodeOptionLabel(current);
  return (
    <Combobox<ScopeOption>
      id={id}
      className="node-scope-picker"
      listLabel="Nodes"
      valueText={valueText}
      valueKey={scope.kind === 'all' ? allKey : scope.nodeId}
      search={search}
      optionKey={scopeOptionKey}
      optionText={scopeOptionText}
      renderOption={renderScopeOption}
      placeholder="Type a node's name…"
      describe={(shown, query) =>
        query.trim() === ''
          ? `${formatCount(nodes.length)} ${nodes.length === 1 ? 'node' : 'nodes'}, ${formatCount(connected)} connected`
          : shown === 0
            ? `No node matches “${query.trim()}”`
            : `${formatCount(shown)} of ${formatCount(nodes.length)} nodes match`
      }
      onChoose={(option) => {
        const next: NodeScope =
          option.kind === 'all' ? { kind: 'all' } : { kind: 'node', nodeId: option.node.nodeId };
        model.nodes.getState().setScope(next);
      }}
    />
  );
}
