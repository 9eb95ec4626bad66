import type { AppModel } from '../../app/model';
import { PullImageDialog } from './PullImageDialog';
import { RunSpecDialog } from './RunSpecDialog';

export function openPullDialog(model: AppModel): void {
  model.ui.getState().openDialog({
    key: 'pull-image',
    render: (close) => <PullImageDialog onClose={close} />,
  });
}

export function openRunDialog(model: AppModel): void {
  model.ui.getState().openDialog({
    key: 'run-spec',
    render: (close) => <RunSpecDialog onClose={close} />,
  });
}
