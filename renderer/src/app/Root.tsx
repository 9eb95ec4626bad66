import { useEffect, useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../shared/errors';
import type { PortholeClient } from '../platform';
import { ReloadButton } from '../ui/Button';
import { ErrorBanner } from '../ui/ErrorBanner';
import { App } from './App';
import { ModelProvider } from './context';
import { createAppModel, type AppModel, type AppModelOptions } from './model';

/** Connects (or takes a ready client), builds the model, and shows the app. */
export function Root({
  connect,
  options,
}: {
  connect: () => Promise<PortholeClient>;
  options?: AppModelOptions;
}) {
  const [model, setModel] = useState<AppModel | undefined>();
  const [error, setError] = useState<AppErrorData | undefined>();

  useEffect(() => {
    let created: AppModel | undefined;
    let cancelled = false;
    connect().then(
      (client) => {
        if (cancelled) {
          client.dispose();
          return;
        }
        created = createAppModel(client, options);
        setModel(created);
      },
      (failure: unknown) => {
        if (!cancelled) setError(toAppErrorData(failure));
      },
    );
    return () => {
      cancelled = true;
      created?.dispose();
      created?.client.dispose();
    };
  }, [connect, options]);

  if (error !== undefined) {
    return (
      <div className="boot">
        <ErrorBanner
          error={{
            ...error,
            hint:
              error.hint ??
              'In browser mode, open a link `npm run web` printed (each works once: press Enter there for another); in the desktop app, restart Porthole.',
          }}
          title="Porthole could not reach its core"
          actions={<ReloadButton />}
        />
      </div>
    );
  }
  if (model === undefined) {
    return (
      <div className="boot" role="status">
        <span className="spinner" />
        Connecting to the Porthole core…
      </div>
    );
  }
  return (
    <ModelProvider model={model}>
      <App />
    </ModelProvider>
  );
}
