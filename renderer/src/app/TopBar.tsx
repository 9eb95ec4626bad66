import { useModel } from './context';
import { Button } from '../ui/Button';
import { isMac, modKeyLabel } from './keyboard';
import { NodeScopePicker } from '../features/nodes/NodeScopePicker';

/** The node selector: every connected node, or one node (connected or not), searchable. */
function NodeScopeSelect() {
  return (
    <div className="node-scope">
      <label htmlFor="node-scope">Node</label>
      <NodeScopePicker id="node-scope" />
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
