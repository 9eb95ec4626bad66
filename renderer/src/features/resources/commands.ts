import type { Command, CommandProvider } from '../../app/registry';
import type { AppModel } from '../../app/model';
import { copyWithToast } from '../../app/CopyButton';
import {
  confirmRemoveContainer,
  confirmRemoveImage,
  confirmRemovePod,
  confirmStopContainer,
  confirmStopPod,
  crictlFor,
} from './actions';
import { openPullDialog, openRunDialog } from './dialogs';
import {
  resourceKinds,
  type ContainerRow,
  type ImageRow,
  type PodRow,
  type ResourceKind,
} from './model';
import { showPod, showPodContainers } from './navigation';
import { deriveRows } from './use-rows';

function selectedRow(model: AppModel, kind: ResourceKind) {
  const key = model.resourceViews.getState().byKind[kind].selectedKey;
  if (key === undefined) return undefined;
  return deriveRows(model.rows, kind, model.resources.getState().index).find(
    (row) => row.key === key,
  );
}

function copyCommand(model: AppModel, id: string, title: string, text: () => string): Command {
  return {
    id,
    title,
    group: 'crictl',
    run: () => void copyWithToast(model, text(), 'the crictl command'),
  };
}

function podCommands(model: AppModel, pod: PodRow): Command[] {
  return [
    {
      id: 'pod.details',
      title: `Open details of pod ${pod.name}`,
      group: 'Pod',
      run: () => model.resourceViews.getState().openDetail('pods', pod.key),
    },
    {
      id: 'pod.containers',
      title: `Show containers of pod ${pod.name}`,
      group: 'Pod',
      run: () => showPodContainers(model, pod.key),
    },
    {
      id: 'pod.stop',
      title: `Stop pod ${pod.name}…`,
      group: 'Pod',
      run: () => confirmStopPod(model, pod),
    },
    {
      id: 'pod.remove',
      title: `Remove pod ${pod.name}…`,
      group: 'Pod',
      run: () => confirmRemovePod(model, pod),
    },
    copyCommand(model, 'pod.inspect', `Copy crictl inspectp ${pod.name}`, () =>
      crictlFor(model, pod.nodeId, { kind: 'inspect-pod', id: pod.id }),
    ),
    copyCommand(model, 'pod.stop.crictl', `Copy crictl stopp ${pod.name}`, () =>
      crictlFor(model, pod.nodeId, { kind: 'stop-pod', id: pod.id }),
    ),
    copyCommand(model, 'pod.remove.crictl', `Copy crictl rmp ${pod.name}`, () =>
      crictlFor(model, pod.nodeId, { kind: 'remove-pod', id: pod.id }),
    ),
  ];
}

function containerCommands(model: AppModel, container: ContainerRow): Command[] {
  const name = container.name;
  return [
    {
      id: 'container.details',
      title: `Open details of container ${name}`,
      group: 'Container',
      run: () => model.resourceViews.getState().openDetail('containers', container.key),
    },
    {
      id: 'container.pod',
      title: `Show pod of container ${name}`,
      group: 'Container',
      run: () => showPod(model, container.podKey),
    },
    {
      id: 'container.stop',
      title: `Stop container ${name}…`,
      group: 'Container',
      run: () => confirmStopContainer(model, container),
    },
    {
      id: 'container.remove',
      title: `Remove container ${name}…`,
      group: 'Container',
      run: () => confirmRemoveContainer(model, container),
    },
    copyCommand(model, 'container.inspect', `Copy crictl inspect ${name}`, () =>
      crictlFor(model, container.nodeId, { kind: 'inspect-container', id: container.id }),
    ),
    copyCommand(model, 'container.logs', `Copy crictl logs ${name}`, () =>
      crictlFor(model, container.nodeId, { kind: 'logs', id: container.id }),
    ),
    copyCommand(model, 'container.exec', `Copy crictl exec ${name}`, () =>
      crictlFor(model, container.nodeId, { kind: 'exec', id: container.id, command: ['sh'] }),
    ),
    copyCommand(model, 'container.stop.crictl', `Copy crictl stop ${name}`, () =>
      crictlFor(model, container.nodeId, {
        kind: 'stop-container',
        id: container.id,
        timeoutSeconds: 10,
      }),
    ),
  ];
}

function imageCommands(model: AppModel, image: ImageRow): Command[] {
  return [
    {
      id: 'image.details',
      title: `Open details of image ${image.displayName}`,
      group: 'Image',
      run: () => model.resourceViews.getState().openDetail('images', image.key),
    },
    {
      id: 'image.remove',
      title: `Remove image ${image.displayName}…`,
      group: 'Image',
      run: () => confirmRemoveImage(model, image),
    },
    copyCommand(model, 'image.inspect', `Copy crictl inspecti ${image.displayName}`, () =>
      crictlFor(model, image.nodeId, { kind: 'inspect-image', ref: image.id }),
    ),
    copyCommand(model, 'image.remove.crictl', `Copy crictl rmi ${image.displayName}`, () =>
      crictlFor(model, image.nodeId, { kind: 'remove-image', ref: image.id }),
    ),
  ];
}

/** Actions on the selection of the view on screen, plus pull and run. */
export const resourceCommands: CommandProvider = (model) => {
  const commands: Command[] = [
    { id: 'image.pull', title: 'Pull an image…', group: 'Image', run: () => openPullDialog(model) },
    {
      id: 'pod.run',
      title: 'Run a pod from a spec…',
      group: 'Pod',
      run: () => openRunDialog(model),
    },
  ];
  const view = model.ui.getState().view;
  const kind = resourceKinds.find((candidate) => candidate === view);
  if (kind === undefined) return commands;
  commands.push({
    id: `${kind}.clear-filter`,
    title: `Clear the ${kind} filter`,
    group: 'View',
    run: () => model.resourceViews.getState().clearFilter(kind),
  });
  const row = selectedRow(model, kind);
  if (row === undefined) return commands;
  switch (kind) {
    case 'pods':
      return [...podCommands(model, row as PodRow), ...commands];
    case 'containers':
      return [...containerCommands(model, row as ContainerRow), ...commands];
    case 'images':
      return [...imageCommands(model, row as ImageRow), ...commands];
  }
  return commands;
};
