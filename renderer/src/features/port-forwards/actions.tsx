/**
 * What the user can do with forwards, one or many at once. Every outcome is visible: the
 * table follows the `forwards` event, failures go to a toast that names the forward.
 */
import { toAppErrorData } from '../../../../shared/errors';
import type { ForwardEntry } from '../../../../shared/model';
import { ConfirmDialog } from '../../app/ConfirmDialog';
import type { AppModel } from '../../app/model';
import { ForwardDialog, type ForwardDialogPod } from './ForwardDialog';
import { MoveForwardDialog } from './MoveForwardDialog';
import { forwardsOf, withPending, type ForwardOperation } from './store';

export type BulkOperation = 'start' | 'stop' | 'restart' | 'remove';

const pendingNames: Readonly<Record<BulkOperation, ForwardOperation>> = {
  start: 'starting',
  stop: 'stopping',
  restart: 'restarting',
  remove: 'removing',
};

const verbs: Readonly<Record<BulkOperation, string>> = {
  start: 'start',
  stop: 'stop',
  restart: 'restart',
  remove: 'remove',
};

/** Runs an operation on each forward (in parallel); one toast per failure, naming it. */
export async function runOnForwards(
  model: AppModel,
  entries: readonly ForwardEntry[],
  operation: BulkOperation,
): Promise<void> {
  const feature = forwardsOf(model);
  const service = model.client.services.forwards;
  const pending = feature.store.getState().pending;
  await Promise.all(
    entries
      .filter((entry) => pending[entry.id] === undefined)
      .map(async (entry) => {
        try {
          await withPending(feature, entry.id, pendingNames[operation], async (): Promise<void> => {
            await service[operation](entry.id);
          });
        } catch (error) {
          model.toasts.getState().show({
            tone: 'error',
            title: `Could not ${verbs[operation]} ${entry.name}`,
            error: toAppErrorData(error),
          });
        }
      }),
  );
}

/** Saves, renames or changes auto-start of one forward. */
export async function updateForward(
  model: AppModel,
  entry: ForwardEntry,
  options: { name?: string; save?: boolean; autoStart?: boolean },
): Promise<void> {
  try {
    await withPending(forwardsOf(model), entry.id, 'saving', () =>
      model.client.services.forwards.update(entry.id, options),
    );
  } catch (error) {
    model.toasts.getState().show({
      tone: 'error',
      title: `Could not change ${entry.name}`,
      error: toAppErrorData(error),
    });
  }
}

export function confirmRemove(model: AppModel, entries: readonly ForwardEntry[]): void {
  if (entries.length === 0) return;
  const single = entries.length === 1 ? entries[0] : undefined;
  const saved = entries.filter((entry) => entry.saved).length;
  model.ui.getState().openDialog({
    key: 'remove-forwards',
    render: (close) => (
      <ConfirmDialog
        title={
          single !== undefined
            ? `Remove forward ${single.name}?`
            : `Remove ${entries.length} forwards?`
        }
        confirmLabel="Remove"
        danger
        onClose={close}
        onConfirm={() => runOnForwards(model, entries, 'remove')}
      >
        {single !== undefined
          ? 'It stops, and its local ports close.'
          : 'They stop, and their local ports close.'}
        {saved > 0 &&
          (single !== undefined
            ? ' It is saved: Porthole forgets it for good.'
            : ` ${saved} of them ${saved === 1 ? 'is' : 'are'} saved: Porthole forgets them for good.`)}
      </ConfirmDialog>
    ),
  });
}

/** Points a forward at another node (its own was removed, or the user wants it elsewhere). */
export function openMoveDialog(model: AppModel, entry: ForwardEntry, nodeName: string): void {
  model.ui.getState().openDialog({
    key: `move-forward:${entry.id}`,
    render: (close) => <MoveForwardDialog entry={entry} nodeName={nodeName} onClose={close} />,
  });
}

/** The create dialog; from a pod's actions the pod is given, from the palette it is picked. */
export function openForwardDialog(model: AppModel, pod?: ForwardDialogPod): void {
  model.ui.getState().openDialog({
    key: 'new-forward',
    render: (close) => <ForwardDialog pod={pod} onClose={close} />,
  });
}
