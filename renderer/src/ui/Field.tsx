import type { ReactNode } from 'react';

/**
 * A form field: its label, its control, then what is wrong with it or, while nothing is,
 * a line of help. The label names the control through `id`.
 */
export function Field({
  id,
  label,
  help,
  error,
  errorId,
  children,
}: {
  /** The control's id; without one, the label is a plain caption. */
  id?: string;
  label: ReactNode;
  help?: ReactNode;
  /** Shown in place of the help. */
  error?: string;
  /** Gives the error this id (for the control's aria-describedby) and announces it. */
  errorId?: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      {id === undefined ? (
        <span className="field-label">{label}</span>
      ) : (
        <label htmlFor={id}>{label}</label>
      )}
      {children}
      {error !== undefined ? (
        <div className="field-error" {...(errorId !== undefined && { id: errorId, role: 'alert' })}>
          {error}
        </div>
      ) : (
        help !== undefined && <div className="field-help">{help}</div>
      )}
    </div>
  );
}
