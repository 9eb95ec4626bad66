import { useCallback, useEffect, useRef, useState } from 'react';
import { recentLogDefaultCount } from '../../../../shared/contract';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { AppLogTail, DiagnosticsReport } from '../../../../shared/model';
import type { AppModel } from '../../app/model';

export interface DiagnosticsState {
  readonly tail?: AppLogTail;
  readonly report?: DiagnosticsReport;
  readonly error?: AppErrorData;
  readonly loading: boolean;
}

/**
 * The log tail and the report, read when the view opens, when asked, and when a node
 * changes state (connecting and disconnecting write to the log). Answers that arrive
 * after a newer request, or after the view closed, are dropped.
 */
export function useDiagnostics(model: AppModel): DiagnosticsState & { refresh: () => void } {
  const [state, setState] = useState<DiagnosticsState>({ loading: true });
  const latest = useRef(0);
  const refresh = useCallback(() => {
    const request = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    const { diagnostics } = model.client.services;
    Promise.all([diagnostics.recentLog(recentLogDefaultCount), diagnostics.report()]).then(
      ([tail, report]) => {
        if (request === latest.current) setState({ tail, report, loading: false });
      },
      (error: unknown) => {
        if (request === latest.current) {
          setState((previous) => ({ ...previous, error: toAppErrorData(error), loading: false }));
        }
      },
    );
  }, [model]);
  useEffect(() => {
    refresh();
    const stop = model.nodes.subscribe((next, previous) => {
      const states = (nodes: typeof next.nodes) => nodes.map((node) => node.state).join();
      if (states(next.nodes) !== states(previous.nodes)) refresh();
    });
    return () => {
      stop();
      // Whatever is still on its way belongs to a view that is gone.
      latest.current++;
    };
  }, [model, refresh]);
  return { ...state, refresh };
}
