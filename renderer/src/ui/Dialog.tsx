import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { returnFocus } from './focus';

const focusableSelector =
  'button:not(:disabled), [href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(focusableSelector)].filter(
    (element) => element.offsetParent !== null || element === document.activeElement,
  );
}

/**
 * A modal dialog: focus moves in (to `[data-autofocus]` or the first control), stays in
 * (Tab cycles), and returns to where it was on close; Esc and a click outside cancel.
 */
export function Dialog({
  title,
  children,
  footer,
  onClose,
  wide = false,
  onSubmit,
  describedBy,
}: {
  title: ReactNode;
  children: ReactNode;
  footer: ReactNode;
  onClose: () => void;
  wide?: boolean;
  /** Makes the dialog a form: Enter in a field (or on the default button) submits. */
  onSubmit?: () => void;
  describedBy?: string;
}) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement;
    const root = panel.current;
    if (root !== null) {
      const preferred = root.querySelector<HTMLElement>('[data-autofocus]');
      (preferred ?? focusables(root)[0] ?? root).focus();
    }
    return () => returnFocus(previous);
  }, []);

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || panel.current === null) return;
    const items = focusables(panel.current);
    const first = items[0];
    const last = items[items.length - 1];
    if (first === undefined || last === undefined) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const content = (
    <>
      {/* divs, not header/footer: inside a dialog those would be a second page banner. */}
      <div className="dialog-header">
        <h2 id={titleId}>{title}</h2>
      </div>
      <div className="dialog-body">{children}</div>
      <div className="dialog-footer">{footer}</div>
    </>
  );

  return (
    <div
      className="dialog-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div
        ref={panel}
        className={wide ? 'dialog wide' : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        {onSubmit === undefined ? (
          content
        ) : (
          <form
            className="dialog-form"
            style={{ display: 'contents' }}
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              onSubmit();
            }}
          >
            {content}
          </form>
        )}
      </div>
    </div>
  );
}

/**
 * A form dialog's buttons: Cancel, any others (`children`), then the default action, the
 * form's submit button. `working` shows its spinner while the action runs.
 */
export function FormActions({
  submitLabel,
  onCancel,
  disabled = false,
  working = false,
  cancelDisabled = false,
  danger = false,
  autofocus = false,
  children,
}: {
  submitLabel: ReactNode;
  onCancel: () => void;
  disabled?: boolean;
  working?: boolean;
  cancelDisabled?: boolean;
  /** The action destroys something: the danger colour instead of the primary one. */
  danger?: boolean;
  /**
   * Which button has the focus when the dialog opens: the default action, or Cancel (a
   * confirmation of something destructive: Enter on it must not destroy anything).
   */
  autofocus?: boolean | 'cancel';
  children?: ReactNode;
}) {
  return (
    <>
      <button
        type="button"
        className="btn"
        disabled={cancelDisabled}
        data-autofocus={autofocus === 'cancel' || undefined}
        onClick={onCancel}
      >
        Cancel
      </button>
      {children}
      <button
        type="submit"
        className={danger ? 'btn btn-danger' : 'btn btn-primary'}
        data-autofocus={autofocus === true || undefined}
        disabled={disabled}
      >
        {working && <span className="spinner" />}
        {submitLabel}
      </button>
    </>
  );
}
