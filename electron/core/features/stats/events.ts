import type { EventSource } from '../../../../shared/contract';
import type { StatsHub } from './index';
import { requireObject, requireString } from '../../base/args';

/** The `stats` event: a connected node's history, then each sample (see StatsPoller). */
export function statsEventSource(hub: StatsHub): EventSource['stats'] {
  return (argument, sink) => {
    const nodeId = requireString(requireObject(argument, 'argument').nodeId, 'nodeId');
    return hub.subscribe(nodeId, sink);
  };
}
