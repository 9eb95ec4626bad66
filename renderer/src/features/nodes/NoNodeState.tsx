import type { ReactNode } from 'react';
import { useModel } from '../../app/context';
import { Button } from '../../ui/Button';
import { EmptyState } from '../../ui/EmptyState';

/** A view with nothing to show until a node is connected: says so, and leads to Nodes. */
export function NoNodeState({ children }: { children: ReactNode }) {
  const model = useModel();
  return (
    <EmptyState
      icon="nodes"
      title="No node connected"
      actions={
        <Button
          variant="primary"
          icon="nodes"
          onClick={() => model.ui.getState().navigate('nodes')}
        >
          Go to Nodes
        </Button>
      }
    >
      {children}
    </EmptyState>
  );
}
