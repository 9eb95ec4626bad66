/** "Debug…" on a container, and what the debug containers' list can do to one. */
import type { AppModel } from '../../app/model';
import { runAction } from '../../app/model';
import type { ResourceAction } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import { terminalsOf } from '../terminal';
import { openDebugDialog } from './DebugDialog';
import { debugOf, type DebugRow } from './store';

export function debugContainer(model: AppModel, container: ContainerRow, reason?: string): void {
  openDebugDialog(
    model,
    {
      nodeId: container.nodeId,
      containerId: container.id,
      containerName: container.name,
      ...(container.podName !== '' && { podName: container.podName }),
    },
    reason,
  );
}

/** The container detail pane's "Debug…" button. */
export const containerDebugAction: ResourceAction<ContainerRow> = {
  id: 'debug.start',
  title: 'Debug…',
  icon: 'search',
  unavailable: (container) =>
    container.state === 'running'
      ? undefined
      : `${container.name} is ${container.state}: only a running container has processes to debug.`,
  run: (model, container) => debugContainer(model, container),
};

/** Another terminal in a debug container (a kept one, or one whose pane was closed). */
export function openDebugShell(model: AppModel, row: DebugRow): void {
  void terminalsOf(model).openTerminal({
    nodeId: row.nodeId,
    containerId: row.containerId,
    containerName: row.containerName,
    ...(row.podName !== undefined && { podName: row.podName }),
    kind: 'exec',
    banner: `Debug container ${row.containerName} for ${row.targetName}: its processes are visible here (ps), its files at /proc/<pid>/root.`,
  });
}

export async function setKept(model: AppModel, row: DebugRow, keep: boolean): Promise<void> {
  await runAction(
    model,
    () => model.client.services.debug.keep(row.nodeId, row.containerId, keep),
    {
      success: keep
        ? `Keeping ${row.containerName}`
        : `${row.containerName} goes with its last terminal`,
      failure: `Could not change ${row.containerName}`,
    },
  );
  await debugOf(model).refresh();
}

export async function removeDebug(model: AppModel, rows: readonly DebugRow[]): Promise<void> {
  for (const row of rows) {
    await runAction(model, () => model.client.services.debug.remove(row.nodeId, row.containerId), {
      success: `Removed ${row.containerName}`,
      failure: `Could not remove ${row.containerName}`,
    });
  }
  await debugOf(model).refresh();
}
