import type { EventSource, ServiceHandler } from '../../../../shared/contract';
import type { SessionRegistry } from './index';
import { requireString } from '../../base/args';

export class SessionsServiceImpl implements ServiceHandler<'sessions'> {
  constructor(private readonly registry: SessionRegistry) {}

  kill(sessionId: string): Promise<void> {
    this.registry.kill(requireString(sessionId, 'sessionId'));
    return Promise.resolve();
  }

  clearHistory(): Promise<void> {
    this.registry.clearHistory();
    return Promise.resolve();
  }
}

/** The `sessions` event: the whole list on subscribe, then on every change. */
export function sessionsEventSource(registry: SessionRegistry): EventSource['sessions'] {
  return (_argument, sink) => {
    const subscription = registry.onDidChange((sessions) => sink.next(sessions));
    sink.next(registry.list());
    return subscription;
  };
}
