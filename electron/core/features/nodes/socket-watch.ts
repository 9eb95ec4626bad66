/**
 * Tells when a unix socket is created again: how a local node whose runtime restarted
 * learns, within milliseconds, that it is worth trying now (the runtime removes and
 * re-creates its socket as it starts). A hint only: when the directory can't be watched
 * (gone, no inotify), nothing is reported and the reconnect backoff finds the runtime.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { toDisposable, type Disposable } from '../../../../shared/lifecycle';

export function watchSocketCreated(socketPath: string, listener: () => void): Disposable {
  const name = basename(socketPath);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(socketPath), { persistent: false }, (_event, file) => {
      // Some platforms don't say which file: then any change in the directory counts.
      if (file === null || file === name) listener();
    });
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    // No folder to watch (gone, no inotify): a hint only, the reconnect backoff finds it.
    watcher = undefined;
  }
  return toDisposable(() => watcher?.close());
}
