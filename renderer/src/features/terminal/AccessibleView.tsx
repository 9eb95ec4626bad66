import { useEffect, useRef } from 'react';
import type { AppModel } from '../../app/model';
import { Dialog } from '../../ui/Dialog';
import type { TerminalPane } from './pane';

/**
 * The terminal's text as a document (Alt+F2, as VS Code's accessible view): scrollback and
 * screen in a read-only text area a screen reader reads line by line, and where arrows,
 * Page Up/Down and selection work as in any text. The caret starts on the last line, where
 * the latest output is; Esc goes back to the terminal.
 */
function AccessibleView({ session, onClose }: { session: TerminalPane; onClose: () => void }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const text = session.transcript();
  useEffect(() => {
    const element = area.current;
    if (element === null) return;
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    element.setSelectionRange(lastLine, lastLine);
    element.scrollTop = element.scrollHeight;
  }, [text]);
  return (
    <Dialog
      title={`Terminal text: ${session.title}`}
      wide
      onClose={onClose}
      footer={
        <>
          <span className="footer-note">
            <kbd>Esc</kbd> back to the terminal
          </span>
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <textarea
        ref={area}
        className="input term-accessible-text"
        aria-label="Terminal text"
        readOnly
        data-autofocus
        value={text}
        spellCheck={false}
      />
    </Dialog>
  );
}

export function openAccessibleView(model: AppModel, session: TerminalPane): void {
  model.ui.getState().openDialog({
    key: `terminal-text-${session.paneId}`,
    render: (close) => <AccessibleView session={session} onClose={close} />,
  });
}
