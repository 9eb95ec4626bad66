import type { EventSource } from '../../../../shared/contract';
import { requireObject, requireString } from '../../base/args';
import type { NodeManager } from './index';

/** The node manager's events (nodes, resources, and its prompt broker's prompts). */
export function createEventSource(
  nodes: NodeManager,
): Pick<EventSource, 'nodes' | 'resources' | 'prompts'> {
  return {
    nodes: (_argument, sink) => {
      const subscription = nodes.onDidChange((statuses) => sink.next(statuses));
      sink.next(nodes.statuses());
      // Statuses before startup finished may be incomplete: send them again once it has.
      nodes.start().then(
        () => sink.next(nodes.statuses()),
        () => undefined,
      );
      return subscription;
    },
    resources: (argument, sink) => {
      const nodeId = requireString(requireObject(argument, 'argument').nodeId, 'nodeId');
      return nodes.watchResources(nodeId, sink);
    },
    prompts: (_argument, sink) => {
      const subscription = nodes.prompts.onDidChange((prompts) => sink.next(prompts));
      sink.next(nodes.prompts.list());
      return subscription;
    },
  };
}
