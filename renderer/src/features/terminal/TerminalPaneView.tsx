import { useState, type MouseEvent } from 'react';
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { isMac } from '../../app/keyboard';
import { formatBytes } from '../../ui/format';
import { Icon, type IconName } from '../../ui/icons';
import { FindBar } from './FindBar';
import { Menu, type MenuEntry } from './Menu';
import { contextMenuEntries, moreMenuEntries } from './pane-actions';
import { dotLabel, dotState } from './phase';
import { EndedBanner, NoticeBar, StartingOverlay } from './PaneOverlay';
import type { TerminalPane } from './pane';
import { shortcutLabel, type TerminalShortcut } from './shortcuts';
import { useTerminals, useTerminalsFeature } from './use-terminals';
import { XtermHost } from './XtermHost';

export function PaneButton({
  icon,
  label,
  shortcut,
  onClick,
  pressed,
  expanded,
  disabled,
  className,
}: {
  icon: IconName;
  label: string;
  shortcut?: TerminalShortcut;
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
  pressed?: boolean;
  /** A menu button: whether its menu is open. */
  expanded?: boolean;
  disabled?: boolean;
  className?: string;
}) {
  const browser = useModel().client.mode === 'browser';
  const keys = shortcut === undefined ? undefined : shortcutLabel(shortcut, isMac(), browser);
  return (
    <button
      type="button"
      className={className === undefined ? 'term-icon-button' : `term-icon-button ${className}`}
      aria-label={label}
      title={keys === undefined ? label : `${label} (${keys})`}
      aria-pressed={pressed}
      aria-expanded={expanded}
      aria-haspopup={expanded === undefined ? undefined : 'menu'}
      disabled={disabled}
      onClick={onClick}
    >
      <Icon name={icon} size={14} />
    </button>
  );
}

export function StatusDot({ pane }: { pane: TerminalPane }) {
  const state = useStore(pane.status, (status) => dotState(status.phase));
  return (
    <span
      className="term-dot"
      data-state={state}
      title={dotLabel(state)}
      aria-label={dotLabel(state)}
      role="img"
    />
  );
}

function RecordingBadge({ pane }: { pane: TerminalPane }) {
  const recording = useStore(pane.status, (status) => status.recording);
  if (recording === undefined) return null;
  return (
    <button
      type="button"
      className="term-rec"
      title="Recording: click to stop"
      aria-label={`Recording, ${formatBytes(recording.size)}: stop`}
      onClick={() => pane.stopRecording()}
    >
      REC {formatBytes(recording.size)}
    </button>
  );
}

/** tty / stdin facts worth knowing before typing. */
function PaneFlags({ pane }: { pane: TerminalPane }) {
  const phase = useStore(pane.status, (status) => status.phase);
  if (phase.phase !== 'live') return null;
  const { tty, stdin, transport } = phase.info;
  return (
    <>
      {!tty && (
        <span
          className="badge plain"
          title="No tty: stderr shows in red, line editing is the program's own"
        >
          no tty
        </span>
      )}
      {!stdin && (
        <span
          className="badge warn"
          title="The container was started without stdin: keystrokes go nowhere"
        >
          read-only
        </span>
      )}
      <span className="term-size" title="How the stream reaches the container">
        {transport}
      </span>
    </>
  );
}

/**
 * "Tab moves focus" (Ctrl+M), the visible way out of a terminal: pressed, Tab and
 * Shift+Tab leave the terminal as they leave any field. F6 always leaves.
 */
function TabFocusToggle() {
  const feature = useTerminalsFeature();
  const on = useTerminals((state) => state.settings.tabMovesFocus);
  const browser = useModel().client.mode === 'browser';
  const keys = shortcutLabel({ action: 'tab-focus' }, isMac(), browser);
  const leave = shortcutLabel({ action: 'leave', step: 1 }, isMac(), browser);
  return (
    <button
      type="button"
      className="term-icon-button term-tab-focus"
      aria-pressed={on}
      aria-keyshortcuts={isMac() ? 'Control+Shift+M' : 'Control+M'}
      title={`Tab moves focus (${keys}); ${leave} always leaves the terminal`}
      onClick={() => feature.toggleTabMovesFocus()}
    >
      <Icon name="keyboard" size={14} />
      <span className="visually-hidden">Tab moves focus</span>
    </button>
  );
}

function PaneHeader({
  pane,
  onMore,
  menuOpen,
}: {
  pane: TerminalPane;
  onMore: (event: MouseEvent<HTMLButtonElement>) => void;
  menuOpen: boolean;
}) {
  const feature = useTerminalsFeature();
  const title = useStore(pane.status, () => pane.title);
  const processTitle = useStore(pane.status, (status) => status.processTitle);
  const cols = useStore(pane.status, (status) => status.cols);
  const rows = useStore(pane.status, (status) => status.rows);
  const finding = useTerminals((state) => state.finding.has(pane.paneId));
  return (
    <header className="term-pane-header">
      <StatusDot pane={pane} />
      <span className="term-pane-title" title={title}>
        {title}
      </span>
      {processTitle !== '' && (
        <span className="term-pane-subtitle" title={processTitle}>
          {processTitle}
        </span>
      )}
      <span className="term-size" aria-label="Terminal size" data-cols={cols} data-rows={rows}>
        {cols}×{rows}
      </span>
      <PaneFlags pane={pane} />
      <RecordingBadge pane={pane} />
      <div className="term-pane-actions">
        <PaneButton
          icon="search"
          label="Find"
          shortcut={{ action: 'find' }}
          pressed={finding}
          onClick={() => feature.setFinding(pane.paneId, !finding)}
        />
        <PaneButton
          icon="split"
          label="Split right"
          shortcut={{ action: 'split', direction: 'right' }}
          onClick={() => feature.split('right', pane.paneId)}
        />
        <PaneButton
          icon="split"
          className="term-rotate"
          label="Split down"
          shortcut={{ action: 'split', direction: 'down' }}
          onClick={() => feature.split('down', pane.paneId)}
        />
        <TabFocusToggle />
        <PaneButton icon="chevronDown" label="More actions" onClick={onMore} expanded={menuOpen} />
        <PaneButton
          icon="close"
          label="Close pane"
          shortcut={{ action: 'close-pane' }}
          onClick={() => feature.closePane(pane.paneId)}
        />
      </div>
    </header>
  );
}

interface OpenMenu {
  readonly entries: readonly MenuEntry[];
  readonly at: { readonly x: number; readonly y: number };
  readonly label: string;
}

/** A live (or ended) terminal: header, the xterm, and what overlays it. */
export function TerminalPaneView({ pane, active }: { pane: TerminalPane; active: boolean }) {
  const model = useModel();
  const feature = useTerminalsFeature();
  const finding = useTerminals((state) => state.finding.has(pane.paneId));
  const title = useStore(pane.status, () => pane.title);
  const containerName = title.split(' › ')[0] ?? '';
  const [menu, setMenu] = useState<OpenMenu | undefined>();

  // No focus on mount: showing the Terminals view must not pull the focus into a terminal
  // (the feature focuses a pane when the user opens, picks or moves to it).

  return (
    <section
      className="term-pane"
      data-active={active}
      aria-label={`Terminal ${title}`}
      onMouseDownCapture={() => {
        if (!active) feature.focusPane(pane.paneId);
      }}
    >
      <PaneHeader
        pane={pane}
        menuOpen={menu?.label === 'Terminal actions'}
        onMore={(event) => {
          const box = event.currentTarget.getBoundingClientRect();
          setMenu({
            entries: moreMenuEntries(model, pane),
            at: { x: box.right - 220, y: box.bottom + 4 },
            label: 'Terminal actions',
          });
        }}
      />
      <div
        className="term-body"
        onContextMenu={(event) => {
          event.preventDefault();
          setMenu({
            entries: contextMenuEntries(model, pane, isMac()),
            at: { x: event.clientX, y: event.clientY },
            label: 'Terminal',
          });
        }}
      >
        <XtermHost content={pane} onAttached={() => feature.paneAttached(pane.paneId)} />
        <StartingOverlay pane={pane} containerName={containerName} />
        {finding && <FindBar pane={pane} onClose={() => feature.setFinding(pane.paneId, false)} />}
        <EndedBanner pane={pane} onClose={() => feature.closePane(pane.paneId)} />
      </div>
      <NoticeBar pane={pane} />
      {menu !== undefined && (
        <Menu
          entries={menu.entries}
          at={menu.at}
          label={menu.label}
          onClose={() => {
            setMenu(undefined);
            pane.focus();
          }}
        />
      )}
    </section>
  );
}
