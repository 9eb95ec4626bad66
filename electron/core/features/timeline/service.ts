import type { TimelineService } from '../../../../shared/contract';
import type { TimelineRecorder } from './recorder';

/** The `timeline` service over the recorder. */
export class TimelineServiceImpl implements TimelineService {
  constructor(private readonly recorder: TimelineRecorder) {}

  clear(): Promise<void> {
    return this.recorder.clear();
  }
}
