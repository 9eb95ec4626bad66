/** Opening terminals on a container: its shell, an attach, or any command. */
import type { AppModel } from '../../app/model';
import type { ResourceAction } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import type { TerminalTarget } from './core-link';
import { openRunCommandDialog } from './RunCommandDialog';
import { terminalsOf } from './store';

function targetOf(container: ContainerRow, kind: TerminalTarget['kind']): TerminalTarget {
  return {
    nodeId: container.nodeId,
    containerId: container.id,
    containerName: container.name,
    ...(container.podName !== '' && { podName: container.podName }),
    kind,
  };
}

/** A terminal with the container's shell (probed: bash, then ash, then sh). */
export function openShell(model: AppModel, container: ContainerRow): void {
  void terminalsOf(model).openTerminal(targetOf(container, 'exec'));
}

/** Attaches to the container's own process, with a tty when the container has one. */
export function attachTo(model: AppModel, container: ContainerRow): void {
  void terminalsOf(model).openTerminal(targetOf(container, 'attach'));
}

function notRunning(container: ContainerRow): string | undefined {
  return container.state === 'running'
    ? undefined
    : `${container.name} is ${container.state}: only a running container has a process to talk to.`;
}

/** The container detail pane's terminal buttons. */
export const containerTerminalActions: readonly ResourceAction<ContainerRow>[] = [
  {
    id: 'terminal.shell',
    title: 'Shell',
    icon: 'terminal',
    unavailable: notRunning,
    run: openShell,
  },
  {
    id: 'terminal.attach',
    title: 'Attach',
    icon: 'plug',
    unavailable: notRunning,
    run: attachTo,
  },
  {
    id: 'terminal.run',
    title: 'Run command…',
    icon: 'play',
    unavailable: notRunning,
    run: openRunCommandDialog,
  },
];
