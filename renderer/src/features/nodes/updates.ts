import type { NodeStatus } from '../../../../shared/model';

/** How the node's lists stay fresh, and when they are polled, why. */
export function updatesText(node: NodeStatus): string {
  if (node.updates === 'events') return 'Live, from the runtime’s container events';
  switch (node.capabilities?.containerEvents) {
    case 'disabled':
      return node.runtime?.runtimeName === 'cri-o'
        ? 'Polling: container events are switched off on this node (CRI-O’s enable_pod_events = false, its default; set it to true in crio.conf for live updates)'
        : 'Polling: container events are switched off on this node (the runtime ends the event stream at once)';
    case 'unsupported':
      return 'Polling (the runtime has no container events)';
    case 'supported':
    case 'unknown':
    case undefined:
      return 'Polling (the runtime’s container events could not be confirmed)';
  }
}
