import type { ResourceAction, ViewDefinition } from '../../app/registry';
import type { ContainerRow } from '../resources/model';
import { FilesView } from './FilesView';
import { filesOf, filesViewId } from './store';
import './files.css';

export const filesView: ViewDefinition = {
  id: filesViewId,
  title: 'Files',
  section: 'Sessions',
  icon: 'file',
  component: FilesView,
};

/** "Files" on a container: its root directory in the Files view. */
export const containerFilesAction: ResourceAction<ContainerRow> = {
  id: 'files.container',
  title: 'Files',
  icon: 'file',
  unavailable: (container) =>
    container.state === 'running'
      ? undefined
      : `${container.name} is ${container.state}: only a running container's files can be reached.`,
  run(model, row) {
    void filesOf(model).openFor({
      nodeId: row.nodeId,
      containerId: row.id,
      containerName: row.name,
      ...(row.podName !== '' && { podName: row.podName }),
    });
    model.ui.getState().navigate(filesViewId);
  },
};

export { filesOf } from './store';
