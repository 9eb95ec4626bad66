import { useEffect, useState, type MouseEvent } from 'react';
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
  disabled,
  className,
}: {
  icon: IconName;
  label: string;
  shortcut?: TerminalShortcut;
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
  pressed?: boolean;
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

function PaneHeader({
  pane,
  onMore,
}: {
  pane: TerminalPane;
  onMore: (event: MouseEvent<HTMLButtonElement>) => void;
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
        <PaneButton icon="chevronDown" label="More actions" onClick={onMore} />
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

  useEffect(() => {
    if (active) pane.focus();
  }, [active, pane]);

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
        <XtermHost content={pane} />
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
