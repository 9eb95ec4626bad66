import type { EventSource } from '../../../../shared/contract';
import { toDisposable } from '../../../../shared/lifecycle';
import { requireObject, requireString } from '../../base/args';
import type { NodeManager } from './index';

/** The node manager's events (nodes, resources, and its prompt broker's prompts). */
export function createEventSource(
  nodes: NodeManager,
): Pick<EventSource, 'nodes' | 'resources' | 'prompts'> {
  return {
    nodes: (_argument, sink) => {
      const subscription = nodes.onDidChange((delta) => sink.next(delta));
      let reset = nodes.sendStatuses(sink);
      // Statuses before startup finished may be incomplete: a reset again once it has.
      if (!nodes.isStarted)
        nodes.start().then(
          () => {
            reset.dispose();
            reset = nodes.sendStatuses(sink);
          },
          () => undefined,
        );
      return toDisposable(() => {
        reset.dispose();
        subscription.dispose();
      });
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
