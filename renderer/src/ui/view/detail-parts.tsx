import type { ReactNode } from 'react';

/** A titled part of a detail pane ("Status", "Mounts (3)"), with an optional action. */
export function Section({
  title,
  action,
  children,
}: {
  title: string;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="section" aria-label={title}>
      <h3 className="section-title">
        {title}
        {action}
      </h3>
      {children}
    </section>
  );
}

/** Facts as label–value pairs (a `<dl>`), labels in one column across a pane's sections. */
export function Props({ children }: { children: ReactNode }) {
  return <dl className="props">{children}</dl>;
}

/** One fact of a Props list; `when` false leaves it out (a field the runtime left empty). */
export function Prop({
  label,
  when = true,
  className,
  title,
  children,
}: {
  label: ReactNode;
  when?: boolean;
  /** The value's class: `mono` for ids, paths and ports. */
  className?: string;
  title?: string;
  children: ReactNode;
}) {
  if (!when) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd className={className} title={title}>
        {children}
      </dd>
    </>
  );
}

/** Columns of a pane under a table (facts on the left, activity on the right). */
export function DetailColumns({ className, children }: { className: string; children: ReactNode }) {
  return <div className={`detail-columns ${className}`}>{children}</div>;
}

export function DetailColumn({ children }: { children: ReactNode }) {
  return <div className="detail-column">{children}</div>;
}
