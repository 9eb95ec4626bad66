/**
 * The Files view's state: the container it shows, the directory listed, and every file
 * transfer (from the core's `transfers` event). Downloads are saved by the page itself
 * from the transfer's same-origin address, so the browser (or Electron) streams them to
 * disk; uploads read the chosen files a piece at a time, a few writes in flight, so neither
 * way holds a file whole. Feature state on the AppModel.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { Disposable } from '../../../../shared/lifecycle';
import {
  filesLimits,
  type FileEntry,
  type FileTransfer,
  type FilesListing,
} from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import { saveUrl } from '../../ui/save-file';

export const filesViewId = 'files';

export interface FilesTarget {
  readonly nodeId: string;
  readonly containerId: string;
  readonly containerName: string;
  readonly podName?: string;
}

export interface FileRow extends FileEntry {
  readonly key: string;
}

export interface FilesState {
  readonly target?: FilesTarget;
  readonly path: string;
  readonly listing?: FilesListing;
  readonly rows: readonly FileRow[];
  readonly loading: boolean;
  readonly error?: AppErrorData;
  readonly selectedKey?: string;
  readonly transfers: readonly FileTransfer[];
}

/** A file the user chose or dropped, with its path below the directory it goes into. */
export interface UploadItem {
  readonly path: string;
  readonly file: Blob;
}

export interface FilesFeature extends Disposable {
  readonly store: StoreApi<FilesState>;
  openFor(target: FilesTarget, path?: string): Promise<void>;
  navigate(path: string): Promise<void>;
  refresh(): Promise<void>;
  download(entry: FileEntry): Promise<void>;
  upload(items: readonly UploadItem[]): Promise<void>;
  cancel(transferId: string): Promise<void>;
}

export function joinPath(directory: string, name: string): string {
  return directory === '/' ? `/${name}` : `${directory}/${name}`;
}

export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

function createFilesFeature(model: AppModel): FilesFeature {
  const store = createStore<FilesState>()(() => ({
    path: '/',
    rows: [],
    loading: false,
    transfers: [],
  }));
  let generation = 0;
  const list = async (path: string): Promise<void> => {
    const target = store.getState().target;
    if (target === undefined) return;
    const mine = ++generation;
    store.setState({ path, loading: true });
    try {
      const listing = await model.client.services.files.list({
        nodeId: target.nodeId,
        containerId: target.containerId,
        path,
      });
      if (mine !== generation) return;
      store.setState({
        path: listing.path,
        listing,
        rows: listing.entries.map((entry) => ({ ...entry, key: entry.name })),
        loading: false,
        error: undefined,
        selectedKey: undefined,
      });
    } catch (error) {
      if (mine !== generation) return;
      store.setState({
        loading: false,
        error: toAppErrorData(error),
        rows: [],
        listing: undefined,
      });
    }
  };
  const subscription = model.client.subscribe(
    'transfers',
    undefined,
    (transfers) => store.setState({ transfers }),
    () => undefined,
  );
  const toastError = (title: string, error: unknown): void => {
    model.toasts.getState().show({ tone: 'error', title, error: toAppErrorData(error) });
  };
  return {
    store,
    openFor: async (target, path = '/') => {
      store.setState({ target, path, rows: [], listing: undefined, error: undefined });
      await list(path);
    },
    navigate: (path) => list(path),
    refresh: () => list(store.getState().path),
    download: async (entry) => {
      const { target, path } = store.getState();
      if (target === undefined) return;
      try {
        const transfer = await model.client.services.files.download({
          nodeId: target.nodeId,
          containerId: target.containerId,
          path: joinPath(path, entry.name),
        });
        if (transfer.url !== undefined) saveUrl(transfer.url, transfer.fileName);
      } catch (error) {
        toastError(`Could not download ${entry.name}`, error);
      }
    },
    upload: async (items) => {
      const { target, path } = store.getState();
      if (target === undefined || items.length === 0) return;
      const files = model.client.services.files;
      let transferId: string | undefined;
      try {
        const transfer = await files.upload({
          nodeId: target.nodeId,
          containerId: target.containerId,
          directory: path,
          files: items.map((item) => ({ path: item.path, size: item.file.size })),
        });
        const id = transfer.transferId;
        transferId = id;
        // A few writes on their way at once (the core applies them in call order): each
        // waited for alone, the round trips were most of an upload's time.
        const sending = new Set<Promise<void>>();
        for (const item of items) {
          for (let at = 0; at < item.file.size; at += filesLimits.maxChunkBytes) {
            const piece = item.file.slice(at, at + filesLimits.maxChunkBytes);
            const data = new Uint8Array(await piece.arrayBuffer());
            const write = files.write(id, data).finally(() => sending.delete(write));
            sending.add(write);
            // Its failure is heard through the race or the Promise.all below.
            write.catch(() => undefined);
            if (sending.size >= filesLimits.writesInFlight) await Promise.race(sending);
          }
        }
        await Promise.all(sending);
        await files.finish(id);
        model.toasts.getState().show({
          tone: 'success',
          title: `Uploaded ${items.length === 1 ? items[0]!.path : `${items.length} files`} to ${path}`,
        });
        if (store.getState().path === path) await list(path);
      } catch (error) {
        const state = store.getState().transfers.find((t) => t.transferId === transferId)?.state;
        if (state !== 'cancelled') toastError('The upload failed', error);
      }
    },
    cancel: async (transferId) => {
      await model.client.services.files.cancel(transferId).catch((error: unknown) => {
        toastError('Could not cancel the transfer', error);
      });
    },
    dispose: () => subscription.dispose(),
  };
}

const filesState = new FeatureState('files', createFilesFeature);

export function filesOf(model: AppModel): FilesFeature {
  return model.featureState(filesState);
}
