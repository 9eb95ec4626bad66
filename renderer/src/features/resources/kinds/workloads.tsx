import type { ReactNode } from 'react';
import type { ResourceAction } from '../../../app/registry';
import { Button } from '../../../ui/Button';
import type { CrictlAction } from '../crictl';
import type { ContainerRow, PodRow } from '../model';
import { RunPodButton } from './create';
import type { ResourceKindView } from './kind';
import { ContributedActions, CrictlCopy, RemoveButton } from './parts';

/**
 * A pod or container kind: what the two have alike (namespaces and labels to filter on,
 * a name, an age, "Run pod…" to make one) around the parts of its own.
 */
export function workloadKind<K extends 'pods' | 'containers'>(
  kind: K,
  own: Pick<
    ResourceKindView<K>,
    'title' | 'one' | 'nouns' | 'icon' | 'columns' | 'Actions' | 'Body'
  >,
): ResourceKindView<K> {
  return {
    kind,
    ...own,
    namespaced: true,
    titleOf: (row) => row.name,
    createdAt: (row) => row.createdAt,
    Create: RunPodButton,
    noneText: `The runtime runs no ${own.nouns[1]} right now. Run a pod from a spec to try things out.`,
  };
}

/**
 * A pod's or container's buttons, in one order: what other features contribute (shell,
 * logs, forward…), the way to its relatives, Stop while it runs, Remove, then the crictl
 * commands that do what the pane shows.
 */
export function WorkloadActions<Row extends PodRow | ContainerRow>({
  row,
  contributed,
  related,
  running,
  onStop,
  onRemove,
  crictl,
}: {
  row: Row;
  contributed: readonly ResourceAction<Row>[];
  /** "Containers (2)" on a pod, "Pod" on a container. */
  related: ReactNode;
  /** Stop is offered only while it runs. */
  running: boolean;
  onStop: () => void;
  onRemove: () => void;
  crictl: readonly { readonly action: CrictlAction; readonly label: string }[];
}) {
  return (
    <>
      <ContributedActions row={row} actions={contributed} />
      {related}
      <Button small icon="stop" disabled={!running} onClick={onStop}>
        Stop
      </Button>
      <RemoveButton onRemove={onRemove} />
      {crictl.map(({ action, label }) => (
        <CrictlCopy key={label} nodeId={row.nodeId} action={action} label={label} />
      ))}
    </>
  );
}
