import { useStore } from 'zustand';
import { ErrorDetail } from '../ui/ErrorBanner';
import { rescueFocus } from '../ui/focus';
import { Icon } from '../ui/icons';
import { useModel } from './context';

/** Outcomes of actions; errors stay until dismissed, with message, hint and detail. */
export function Toasts() {
  const model = useModel();
  const toasts = useStore(model.toasts, (state) => state.toasts);
  const dismiss = useStore(model.toasts, (state) => state.dismiss);
  const hold = useStore(model.toasts, (state) => state.hold);
  return (
    <section className="toasts" aria-label="Notifications" aria-live="polite">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`toast ${toast.tone}`}
          role={toast.tone === 'error' ? 'alert' : 'status'}
          onMouseEnter={() => hold(toast.id, true)}
          onMouseLeave={() => hold(toast.id, false)}
          onFocus={() => hold(toast.id, true)}
          onBlur={(event) => {
            if (!event.currentTarget.contains(event.relatedTarget)) hold(toast.id, false);
          }}
        >
          <Icon
            name={toast.tone === 'error' ? 'alert' : toast.tone === 'success' ? 'check' : 'info'}
          />
          <div className="toast-body">
            <div className="toast-title">
              {toast.title}
              {toast.count > 1 && (
                <span className="toast-count" title={`Shown ${toast.count} times`}>
                  {' '}
                  ×{toast.count}
                </span>
              )}
            </div>
            {toast.error !== undefined && <div>{toast.error.message}</div>}
            {toast.error?.hint !== undefined && <div className="muted">{toast.error.hint}</div>}
            {toast.body !== undefined && <div className="muted">{toast.body}</div>}
            <ErrorDetail detail={toast.error?.detail} />
          </div>
          <button
            type="button"
            className="btn btn-small btn-ghost btn-icon"
            aria-label="Dismiss"
            onClick={() => {
              dismiss(toast.id);
              rescueFocus();
            }}
          >
            <Icon name="close" size={14} />
          </button>
        </div>
      ))}
    </section>
  );
}
