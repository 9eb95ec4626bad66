import { useModel, useNodes } from './context';
import { Button } from '../ui/Button';
import { isMac, modKeyLabel } from './keyboard';
import { NodeOptions } from '../features/nodes/NodeLabel';

/** The node selector: every connected node, or one node (connected or not). */
function NodeScopeSelect() {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const connected = nodes.filter((node) => node.state === 'connected');
  const value = scope.kind === 'all' ? '' : scope.nodeId;
  return (
    <div className="node-scope">
      <label htmlFor="node-scope">Node</label>
      <select
        id="node-scope"
        className="select"
        value={value}
        onChange={(event) =>
          model.nodes
            .getState()
            .setScope(
              event.target.value === ''
                ? { kind: 'all' }
                : { kind: 'node', nodeId: event.target.value },
            )
        }
      >
        <option value="">All connected nodes ({connected.length})</option>
        <NodeOptions nodes={nodes} />
      </select>
    </div>
  );
}

export function TopBar({ title }: { title: string }) {
  const model = useModel();
  return (
    <header className="topbar">
      <h1 className="topbar-title">{title}</h1>
      <span className="topbar-spacer" />
      <NodeScopeSelect />
      <Button
        variant="ghost"
        icon="command"
        title={`Command palette (${modKeyLabel('K')})`}
        aria-keyshortcuts={isMac() ? 'Meta+K' : 'Control+K'}
        onClick={() => model.ui.getState().setPaletteOpen(true)}
      >
        {/* The name is what shows, and what it does: "Command palette Ctrl+K". */}
        <span className="visually-hidden">Command palette</span>
        <kbd>{modKeyLabel('K')}</kbd>
      </Button>
    </header>
  );
}
