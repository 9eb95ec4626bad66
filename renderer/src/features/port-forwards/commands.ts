import { copyWithToast } from '../../app/CopyButton';
import type { Command, CommandProvider } from '../../app/registry';
import { openForwardDialog, runOnForwards } from './actions';
import { forwardRow, isRunning } from './entries';
import { forwardsOf } from './store';

/** New forwards, and start / stop / restart / copy the URL of each one. */
export const forwardCommands: CommandProvider = (model) => {
  const commands: Command[] = [
    {
      id: 'forward.new',
      title: 'New port forward…',
      group: 'Port forward',
      run: () => openForwardDialog(model),
    },
  ];
  // The pod selected in the Pods table, as its own "forward" entry.
  const podKey = model.resourceViews.getState().byKind.pods.selectedKey;
  const pod = podKey === undefined ? undefined : model.resources.getState().index.pods.get(podKey);
  if (pod !== undefined && pod.state === 'ready') {
    commands.push({
      id: 'forward.pod',
      title: `Forward a port of pod ${pod.name}…`,
      group: 'Port forward',
      run: () =>
        openForwardDialog(model, {
          nodeId: pod.nodeId,
          podSandboxId: pod.id,
          namespace: pod.namespace,
          name: pod.name,
        }),
    });
  }
  for (const entry of forwardsOf(model).store.getState().forwards) {
    const row = forwardRow(entry, entry.nodeId);
    if (isRunning(row)) {
      commands.push(
        {
          id: `forward.stop.${entry.id}`,
          title: `Stop forward ${entry.name}`,
          group: 'Port forward',
          run: () => void runOnForwards(model, [entry], 'stop'),
        },
        {
          id: `forward.restart.${entry.id}`,
          title: `Restart forward ${entry.name}`,
          group: 'Port forward',
          run: () => void runOnForwards(model, [entry], 'restart'),
        },
      );
      const url = row.urls[0];
      if (url !== undefined) {
        commands.push({
          id: `forward.copy.${entry.id}`,
          title: `Copy the URL of ${entry.name}`,
          group: 'Port forward',
          run: () => void copyWithToast(model, url.href, `the URL ${url.href}`),
        });
      }
    } else {
      commands.push({
        id: `forward.start.${entry.id}`,
        title: `Start forward ${entry.name}`,
        group: 'Port forward',
        run: () => void runOnForwards(model, [entry], 'start'),
      });
    }
  }
  return commands;
};
