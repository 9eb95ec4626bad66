import type { ReactNode } from 'react';
import { Button } from './Button';
import { Icon, type IconName } from './icons';

/** An empty table or view, saying why it is empty and what to do next. */
export function EmptyState({
  icon,
  title,
  children,
  actions,
}: {
  icon: IconName;
  title: string;
  children?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="empty-state" role="status">
      <Icon name={icon} size={36} />
      <h2>{title}</h2>
      {children !== undefined && <p>{children}</p>}
      {actions !== undefined && <div className="empty-actions">{actions}</div>}
    </div>
  );
}

/** Not empty, not known yet: "Reading the forwards…", with a spinner. */
export function LoadingState({ children }: { children: ReactNode }) {
  return (
    <div className="empty-state" role="status">
      <span className="spinner" />
      {children}
    </div>
  );
}

/** Rows exist but the filter hides them all: how many, and (where it helps) a way out. */
export function NoMatchesState({
  plural,
  hidden,
  onClear,
}: {
  /** What the rows are: "forwards". */
  plural: string;
  /** How many are hidden, as words: "12", or "12 containers". */
  hidden: string;
  onClear?: () => void;
}) {
  return (
    <EmptyState
      icon="search"
      title={`No ${plural} match the filter`}
      {...(onClear !== undefined && { actions: <Button onClick={onClear}>Clear filter</Button> })}
    >
      {hidden} hidden by the filter.
    </EmptyState>
  );
}
