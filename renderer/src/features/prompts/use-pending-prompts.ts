import { useEffect, useState } from 'react';
import type { PendingPrompt } from '../../../../shared/model';
import type { PortholeClient } from '../../platform';

/**
 * The questions connection attempts are waiting on (the `prompts` event), oldest first.
 * Empty until the first event, and again if the subscription ends for good.
 */
export function usePendingPrompts(client: PortholeClient): readonly PendingPrompt[] {
  const [prompts, setPrompts] = useState<readonly PendingPrompt[]>([]);
  useEffect(() => {
    const subscription = client.subscribe('prompts', undefined, setPrompts, () => setPrompts([]));
    return () => subscription.dispose();
  }, [client]);
  return prompts;
}
