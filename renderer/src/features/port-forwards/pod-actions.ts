import type { ResourceAction } from '../../app/registry';
import type { PodRow } from '../resources/model';
import { openForwardDialog } from './actions';

/** "Forward port…" in a pod's detail pane: the dialog opens on that pod, its ports offered. */
export const podForwardActions: readonly ResourceAction<PodRow>[] = [
  {
    id: 'pod.forward',
    title: 'Forward port…',
    icon: 'forward',
    unavailable: (pod) =>
      pod.state === 'ready' ? undefined : 'Only a ready pod has a network to forward to.',
    run: (model, pod) =>
      openForwardDialog(model, {
        nodeId: pod.nodeId,
        podSandboxId: pod.id,
        namespace: pod.namespace,
        name: pod.name,
      }),
  },
];
