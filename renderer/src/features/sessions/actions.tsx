import type { SessionKind, SessionSnapshot } from '../../../../shared/model';
import { ConfirmDialog } from '../../app/ConfirmDialog';
import { runAction, type AppModel } from '../../app/model';
import { kindLabels } from './rows';

/** What killing does, by kind: the owner ends it the way closing it would. */
const killEffects: Readonly<Record<SessionKind, string>> = {
  exec: 'Its stream closes: the process in the container loses its terminal and usually ends.',
  attach: 'The attach ends; the container keeps running.',
  'port-forward':
    'The forward stops and its local ports close; it stays in the Port forwards list.',
  logs: 'Following the log stops.',
  transfer: 'The transfer is cancelled; an upload leaves nothing half-written in the container.',
};

export function confirmKill(model: AppModel, session: SessionSnapshot): void {
  if (!session.killable) return;
  const what = `${kindLabels[session.kind].toLowerCase()} session`;
  model.ui.getState().openDialog({
    key: 'kill-session',
    render: (close) => (
      <ConfirmDialog
        title={`Kill ${what} ${session.target.description}?`}
        confirmLabel="Kill"
        danger
        onClose={close}
        onConfirm={() =>
          runAction(model, () => model.client.services.sessions.kill(session.id), {
            failure: `Could not kill the ${what}`,
            topic: `kill:${session.id}`,
          })
        }
      >
        {killEffects[session.kind]}
        {session.detail !== undefined && (
          <div className="mono muted" style={{ marginTop: 6 }}>
            {session.detail}
          </div>
        )}
      </ConfirmDialog>
    ),
  });
}

export function clearHistory(model: AppModel): Promise<void | undefined> {
  return runAction(model, () => model.client.services.sessions.clearHistory(), {
    failure: 'Could not clear the session history',
  });
}
