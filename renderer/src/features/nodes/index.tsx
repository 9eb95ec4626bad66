import type { Command, CommandProvider, ViewDefinition } from '../../app/registry';
import { useNodes } from '../../app/context';
import { connectNode, disconnectNode, openNodeForm } from './actions';
import { NodesView } from './NodesView';
import './nodes.css';

export const nodesView: ViewDefinition = {
  id: 'nodes',
  title: 'Nodes',
  section: 'Node',
  icon: 'nodes',
  component: NodesView,
  useCount: () => {
    // A count of connected nodes: "how much am I looking at".
    const connected = useNodes(
      (state) => state.nodes.filter((node) => node.state === 'connected').length,
    );
    return connected;
  },
};

export const nodeCommands: CommandProvider = (model) => {
  const { nodes, scope, setScope } = model.nodes.getState();
  const commands: Command[] = [
    { id: 'node.add', title: 'Add a node…', group: 'Node', run: () => openNodeForm(model) },
  ];
  for (const node of nodes) {
    if (node.state === 'reconnecting') {
      commands.push({
        id: `node.connect.${node.nodeId}`,
        title: `Reconnect to ${node.name} now`,
        group: 'Node',
        run: () => void connectNode(model, node),
      });
    }
    if (node.state === 'connected' || node.state === 'reconnecting') {
      commands.push({
        id: `node.disconnect.${node.nodeId}`,
        title: `Disconnect from ${node.name}`,
        group: 'Node',
        run: () => void disconnectNode(model, node),
      });
      if (scope.kind !== 'node' || scope.nodeId !== node.nodeId) {
        commands.push({
          id: `node.scope.${node.nodeId}`,
          title: `Show only ${node.name}`,
          group: 'Scope',
          run: () => setScope({ kind: 'node', nodeId: node.nodeId }),
        });
      }
    } else {
      commands.push({
        id: `node.connect.${node.nodeId}`,
        title: `Connect to ${node.name}`,
        group: 'Node',
        run: () => void connectNode(model, node),
      });
    }
  }
  if (scope.kind !== 'all') {
    commands.push({
      id: 'node.scope.all',
      title: 'Show all connected nodes',
      group: 'Scope',
      run: () => setScope({ kind: 'all' }),
    });
  }
  return commands;
};
