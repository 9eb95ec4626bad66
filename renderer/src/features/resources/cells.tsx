import { memo } from 'react';
import { useModel, useNodes } from '../../app/context';
import { formatAge } from '../../ui/format';
import { useNow } from '../../ui/clock';
import { showPod } from './navigation';

/** A live age ("12s", "3m"), re-rendered by the shared one-second clock only. */
export const Age = memo(function Age({ since }: { since: number }) {
  const now = useNow();
  // No formatted date here: Intl formatting per cell is what makes a table slow to
  // update. The detail pane shows the full timestamp.
  return <time dateTime={new Date(since).toISOString()}>{formatAge(since, now)}</time>;
});

export const NodeName = memo(function NodeName({ nodeId }: { nodeId: string }) {
  const name = useNodes((state) => state.nodes.find((node) => node.nodeId === nodeId)?.name);
  return <span title={name}>{name ?? nodeId}</span>;
});

export const PodLink = memo(function PodLink({ podKey, name }: { podKey: string; name: string }) {
  const model = useModel();
  if (name === '') return <span className="faint">unknown</span>;
  return (
    <button
      type="button"
      className="link"
      title={`Show pod ${name}`}
      onMouseDown={(event) => event.stopPropagation()}
      onClick={(event) => {
        event.stopPropagation();
        showPod(model, podKey);
      }}
    >
      {name}
    </button>
  );
});
