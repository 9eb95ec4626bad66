import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useModel, useUi } from './context';
import { menuToggleId } from './ui-store';
import { focusHomeSoon } from '../ui/focus';
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

/**
 * The width below which the sidebar leaves the grid and becomes a drawer behind the top
 * bar's Menu button (at 200% zoom a laptop's window is about 720 px wide: the view needs
 * the sidebar's 200 px). The same width as the `@media` rule in styles/app.css.
 */
const narrowShell = '(max-width: 900px)';

function subscribeNarrow(onChange: () => void): () => void {
  if (typeof matchMedia !== 'function') return () => undefined;
  const media = matchMedia(narrowShell);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

/** Whether the window is narrow enough for the sidebar to be a drawer. */
export function useNarrowShell(): boolean {
  return useSyncExternalStore(
    subscribeNarrow,
    () => typeof matchMedia === 'function' && matchMedia(narrowShell).matches,
    () => false,
  );
}

function focusMenuToggle(): void {
  document.getElementById(menuToggleId)?.focus();
}

export function Sidebar({ views }: { views: readonly ViewDefinition[] }) {
  const model = useModel();
  const current = useUi((state) => state.view);
  const open = useUi((state) => state.navOpen);
  const setOpen = useUi((state) => state.setNavOpen);
  const narrow = useNarrowShell();
  const drawer = narrow && open;
  const nav = useRef<HTMLElement>(null);

  // A window grown wide again shows the sidebar in its place: no drawer left open.
  useEffect(() => {
    if (!narrow && open) setOpen(false);
  }, [narrow, open, setOpen]);

  // The drawer opens onto the current view's item, so Enter or a Tab goes on from there.
  useEffect(() => {
    if (!drawer) return;
    const element = nav.current;
    (
      element?.querySelector<HTMLElement>('[aria-current="page"]') ??
      element?.querySelector<HTMLElement>('button')
    )?.focus();
  }, [drawer]);

  /** Closed by the user (Escape, the backdrop): focus back on the Menu button. */
  const close = (): void => {
    focusMenuToggle();
    setOpen(false);
  };

  return (
    <>
      {drawer && <div className="nav-backdrop" aria-hidden onClick={close} />}
      <nav
        ref={nav}
        id="sidebar"
        className={drawer ? 'sidebar open' : 'sidebar'}
        aria-label="Porthole"
        onKeyDown={(event) => {
          if (drawer && event.key === 'Escape') {
            event.preventDefault();
            event.stopPropagation();
            close();
          }
        }}
        onBlur={(event) => {
          // Tab out of the drawer (to the Menu button or the view): it closes behind the
          // focus, which stays where it went.
          const to = event.relatedTarget;
          if (drawer && to instanceof Node && !event.currentTarget.contains(to)) setOpen(false);
        }}
      >
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
                  onClick={() => {
                    model.ui.getState().navigate(view.id);
                    // The drawer closes under the focus: the chosen view takes it.
                    if (drawer) focusHomeSoon(document.activeElement);
                  }}
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
    </>
  );
}
