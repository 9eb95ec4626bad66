import { useModel, useUi } from './context';
import { formatCount } from '../ui/format';
import { Icon } from '../ui/icons';
import { isMac, modKeyLabel, viewShortcutLabel } from './keyboard';
import type { ViewDefinition } from './registry';

function NavCount({ view }: { view: ViewDefinition }) {
  const count = view.useCount?.();
  if (count === undefined) return null;
  return (
    <span className="nav-count" aria-label={`${count}`}>
      {formatCount(count)}
    </span>
  );
}

function sections(views: readonly ViewDefinition[]): [string, ViewDefinition[]][] {
  const grouped = new Map<string, ViewDefinition[]>();
  for (const view of views) grouped.set(view.section, [...(grouped.get(view.section) ?? []), view]);
  return [...grouped];
}

export function Sidebar({ views }: { views: readonly ViewDefinition[] }) {
  const model = useModel();
  const current = useUi((state) => state.view);
  return (
    <nav className="sidebar" aria-label="Porthole">
      <div className="brand">
        <Icon name="porthole" className="brand-mark" size={20} />
        Porthole
      </div>
      <div className="nav">
        {sections(views).map(([section, items]) => (
          <div key={section} role="group" aria-label={section}>
            <div className="nav-section" aria-hidden>
              {section}
            </div>
            {items.map((view) => (
              <button
                key={view.id}
                type="button"
                className="nav-item"
                aria-current={view.id === current ? 'page' : undefined}
                title={
                  views.indexOf(view) < 9
                    ? `${view.title} (${viewShortcutLabel(views.indexOf(view), isMac(), model.client.mode === 'browser')})`
                    : view.title
                }
                onClick={() => model.ui.getState().navigate(view.id)}
              >
                <Icon name={view.icon} />
                {view.title}
                <NavCount view={view} />
              </button>
            ))}
          </div>
        ))}
      </div>
      <div className="sidebar-footer">
        <span>
          <kbd>{modKeyLabel('K')}</kbd> commands
        </span>
        <span>
          <kbd>?</kbd> keyboard shortcuts
        </span>
        <span>Click a row for its details</span>
        <span>{model.client.mode === 'browser' ? 'Browser mode' : 'Desktop'}</span>
      </div>
    </nav>
  );
}
