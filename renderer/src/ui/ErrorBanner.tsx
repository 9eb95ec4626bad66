import type { ReactNode } from 'react';
import type { AppErrorData } from '../../../shared/errors';
import { Icon } from './icons';

/** The technical detail, folded away: users need the message and hint first. */
export function ErrorDetail({ detail }: { detail?: string }) {
  if (detail === undefined || detail === '') return null;
  return (
    <details className="error-detail">
      <summary>Details</summary>
      <pre>{detail}</pre>
    </details>
  );
}

/** An AppError inside a view: what happened, what to do about it, and the details. */
export function ErrorBanner({
  error,
  title,
  actions,
  tone = 'error',
}: {
  error: AppErrorData;
  /** A lead-in naming what failed, e.g. "Resources of lab-2 stopped updating". */
  title?: string;
  actions?: ReactNode;
  tone?: 'error' | 'warn';
}) {
  return (
    <div className={`banner ${tone}`} role="alert">
      <Icon name="alert" />
      <div className="banner-body">
        <div className="banner-title">{title ?? error.message}</div>
        {title !== undefined && <div>{error.message}</div>}
        {error.hint !== undefined && <div className="banner-hint muted">{error.hint}</div>}
        <ErrorDetail detail={error.detail} />
      </div>
      {actions !== undefined && <div className="banner-actions">{actions}</div>}
    </div>
  );
}

export function InfoBanner({
  children,
  tone = 'info',
  actions,
}: {
  children: ReactNode;
  tone?: 'info' | 'warn';
  actions?: ReactNode;
}) {
  return (
    <div className={`banner ${tone}`} role="status">
      <Icon name={tone === 'warn' ? 'alert' : 'info'} />
      <div className="banner-body">{children}</div>
      {actions !== undefined && <div className="banner-actions">{actions}</div>}
    </div>
  );
}
