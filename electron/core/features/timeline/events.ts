import type { EventSource } from '../../../../shared/contract';
import type { TimelineRecorder } from './recorder';

/** The `timeline` event: every event kept, then each new batch. */
export function timelineEventSource(recorder: TimelineRecorder): EventSource['timeline'] {
  return (_argument, sink) => recorder.subscribe(sink);
}
