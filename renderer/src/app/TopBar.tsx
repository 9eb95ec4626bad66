import { useModel, useUi } from './context';
import { Button } from '../ui/Button';
import { isMac, modKeyLabel } from './keyboard';
import { NodeScopePicker } from '../features/nodes/NodeScopePicker';
import { useNarrowShell } from './Sidebar';
import { menuToggleId } from './ui-store';

/** The node selector: every connected node, or one node (connected or not), searchable. */
function NodeScopeSelect() {
  return (
    <div className="node-scope">
      <label htmlFor="node-scope">Node</label>
      <NodeScopePicker id="node-scope" />
    </div>
  );
}

/** In a narrow window, the button that opens the sidebar over the view. */
function MenuToggle() {
  const open = useUi((state) => state.navOpen);
  const setOpen = useUi((state) => state.setNavOpen);
  if (!useNarrowShell()) return null;
  return (
    <Button
      variant="ghost"
      icon="menu"
      id={menuToggleId}
      aria-expanded={open}
      aria-controls="sidebar"
      onClick={() => setOpen(!open)}
    >
      Menu
    </Button>
  );
}

export function TopBar({ title }: { title: string }) {
  const model = useModel();
  return (
    <header className="topbar">
      <MenuToggle />
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
