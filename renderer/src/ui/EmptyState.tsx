import type { ReactNode } from 'react';
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
