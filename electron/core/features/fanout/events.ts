import type { EventSource } from '../../../../shared/contract';
import { requireObject, requireString } from '../../base/args';
import type { FanoutManager } from './manager';

/** The `fanout` event: a run's rows, whole first, then as they change. */
export function fanoutEventSource(manager: FanoutManager): EventSource['fanout'] {
  return (argument, sink) => {
    const runId = requireString(requireObject(argument, 'argument').runId, 'runId', 64);
    return manager.subscribe(runId, sink);
  };
}
