/** How the toolbar and an empty table offer to make a resource. */
import { useModel } from '../../../app/context';
import { Button } from '../../../ui/Button';
import { openPullDialog, openRunDialog } from '../dialogs';

export function RunPodButton({ primary = false }: { primary?: boolean }) {
  const model = useModel();
  return (
    <Button
      icon="play"
      {...(primary && { variant: 'primary' })}
      onClick={() => openRunDialog(model)}
    >
      Run pod…
    </Button>
  );
}

export function PullImageButton({ primary = false }: { primary?: boolean }) {
  const model = useModel();
  return (
    <Button
      icon="download"
      {...(primary && { variant: 'primary' })}
      onClick={() => openPullDialog(model)}
    >
      Pull image…
    </Button>
  );
}
