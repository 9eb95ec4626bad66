import { useState, type ReactNode } from 'react';
import { Dialog, FormActions } from '../ui/Dialog';
import { CopyButton } from './CopyButton';

/**
 * "Stop web-1?" — names the resource, shows the equivalent crictl command. A destructive
 * action starts with the focus on Cancel (Tab, then Enter confirms); Esc cancels.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger = false,
  command,
  extra,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** The crictl equivalent, shown and copyable; may depend on `extra` fields. */
  command?: string;
  /** Additional inputs, e.g. a grace period. */
  extra?: ReactNode;
  /** Runs the action; the dialog closes when it settles (its outcome goes to a toast). */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const [running, setRunning] = useState(false);
  const confirm = (): void => {
    if (running) return;
    setRunning(true);
    // The dialog closes at once: the toast reports the outcome, and the table shows the
    // resource change state as the runtime reports it.
    onClose();
    void onConfirm();
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      onSubmit={confirm}
      footer={
        <>
          <span className="footer-note">
            {danger && <kbd>Tab</kbd>} <kbd>Enter</kbd> {confirmLabel.toLowerCase()} ·{' '}
            <kbd>Esc</kbd> cancel
          </span>
          <FormActions
            submitLabel={confirmLabel}
            onCancel={onClose}
            disabled={running}
            danger={danger}
            autofocus={danger ? 'cancel' : true}
          />
        </>
      }
    >
      <div>{children}</div>
      {extra}
      {command !== undefined && (
        <div className="command-preview">
          <code>{command}</code>
          <CopyButton text={command} what="the crictl command" compact />
        </div>
      )}
    </Dialog>
  );
}
