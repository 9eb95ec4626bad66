import type { CSSProperties, ReactNode } from 'react';
import { Button } from '../Button';
import { Splitter } from '../Splitter';

interface PaneBase {
  /** The pane's accessible name: "Pod details", "Forward web". */
  readonly label: string;
  readonly title: string;
  readonly onClose: () => void;
  /** Actions, sections and banners: the kind's own parts. */
  readonly children: ReactNode;
}

/** Beside the table, resizable: the kind above the title, a line under it. */
export interface SidePane extends PaneBase {
  readonly placement: 'side';
  /** "Pod", "Container". */
  readonly kind: string;
  readonly subtitle?: ReactNode;
  readonly width: number;
  readonly bounds: { readonly min: number; readonly max: number };
  readonly onResize: (width: number) => void;
}

/** Under the table: the title with its state and actions on one line. */
export interface PaneBelow extends PaneBase {
  readonly placement: 'below';
  /** The feature's class for the pane (its sheet lays out the body). */
  readonly className: string;
  /** A state badge after the title… */
  readonly status?: ReactNode;
  /** …and why it is in that state (the line's flexible middle, empty or not). */
  readonly reason?: string;
  /** Buttons before the close button. */
  readonly actions?: ReactNode;
}

function CloseButton({ onClose, title }: { onClose: () => void; title?: string }) {
  return (
    <Button
      small
      variant="ghost"
      iconOnly
      icon="close"
      aria-label="Close details"
      title={title}
      onClick={onClose}
    />
  );
}

/**
 * The details of a table's open row, in one layout wherever they show: beside the table
 * (resizable with a splitter) or under it.
 */
export function DetailPane(props: SidePane | PaneBelow) {
  const { label, title, onClose, children } = props;
  if (props.placement === 'below') {
    return (
      <section className={`bottom-detail ${props.className}`} aria-label={label}>
        <header className="bottom-detail-header">
          <h2>{title}</h2>
          {props.status}
          <span className="muted detail-reason">{props.reason}</span>
          {props.actions}
          <CloseButton onClose={onClose} />
        </header>
        {children}
      </section>
    );
  }
  return (
    <>
      <Splitter
        label="Resize the details pane"
        width={props.width}
        min={props.bounds.min}
        max={props.bounds.max}
        onResize={props.onResize}
      />
      {/* A variable, not the width itself: the sheet puts the pane under the table in a
          narrow window, whatever width it has beside it. */}
      <aside
        className="detail"
        style={{ '--detail-width': `${props.width}px` } as CSSProperties}
        aria-label={label}
      >
        <header className="detail-header">
          <div className="detail-heading">
            <div className="detail-kind">{props.kind}</div>
            <h2 className="detail-title" title={title}>
              {title}
            </h2>
            {props.subtitle !== undefined && (
              <div className="detail-subtitle">{props.subtitle}</div>
            )}
          </div>
          {/* Esc closes it from anywhere in the view (the resources' shortcut). */}
          <CloseButton onClose={onClose} title="Close (Esc)" />
        </header>
        {children}
      </aside>
    </>
  );
}
