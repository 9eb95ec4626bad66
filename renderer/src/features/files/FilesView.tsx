import { useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { FileEntry, FileTransfer } from '../../../../shared/model';
import { CopyButton } from '../../app/CopyButton';
import { useModel } from '../../app/context';
import { Badge, type Tone } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatBytes, formatCount } from '../../ui/format';
import type { Column } from '../../ui/table/VirtualTable';
import { TableView } from '../../ui/view/TableView';
import { Toolbar, ToolbarStatus } from '../../ui/view/Toolbar';
import { itemsFromDrop, itemsFromInput } from './drop';
import { filesOf, joinPath, parentOf, type FileRow } from './store';

/** `drwxr-xr-x`, as ls shows it. */
export function modeString(entry: Pick<FileEntry, 'type' | 'mode'>): string {
  const kind: Record<FileEntry['type'], string> = {
    file: '-',
    directory: 'd',
    symlink: 'l',
    socket: 's',
    fifo: 'p',
    block: 'b',
    char: 'c',
  };
  let text = kind[entry.type];
  for (const shift of [6, 3, 0]) {
    const bits = (entry.mode >> shift) & 7;
    text += `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
  }
  return text;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const columns: readonly Column<FileRow>[] = [
  {
    id: 'name',
    header: 'Name',
    width: 220,
    grow: 2,
    render: (row) => (
      <span
        className="files-name"
        title={row.undecodable === true ? 'Its name is not UTF-8.' : undefined}
      >
        {row.type === 'directory' ? `${row.name}/` : row.name}
      </span>
    ),
  },
  {
    id: 'size',
    header: 'Size',
    width: 90,
    render: (row) => (row.type === 'directory' ? '—' : formatBytes(row.size)),
  },
  {
    id: 'mode',
    header: 'Mode',
    width: 110,
    render: (row) => <span className="mono">{modeString(row)}</span>,
  },
  {
    id: 'owner',
    header: 'Owner',
    width: 110,
    priority: 1,
    render: (row) => `${row.owner ?? row.uid}:${row.group ?? row.gid}`,
  },
  {
    id: 'modified',
    header: 'Modified',
    width: 170,
    priority: 2,
    render: (row) => dateFormat.format(row.modifiedAt),
  },
  {
    id: 'link',
    header: 'Link target',
    width: 160,
    grow: 1,
    priority: 3,
    render: (row) => row.linkTarget ?? '',
  },
];

function Breadcrumb({ path, onGo }: { path: string; onGo: (path: string) => void }) {
  const parts = path === '/' ? [] : path.slice(1).split('/');
  const crumbs = [{ label: '/', path: '/' }];
  parts.forEach((part, index) =>
    crumbs.push({ label: part, path: `/${parts.slice(0, index + 1).join('/')}` }),
  );
  return (
    <nav className="files-breadcrumb" aria-label="Path">
      <ol>
        {crumbs.map((crumb, index) => (
          <li key={crumb.path}>
            {index === crumbs.length - 1 ? (
              <span aria-current="location" className="mono">
                {crumb.label}
              </span>
            ) : (
              <button
                type="button"
                className="btn btn-small btn-ghost mono"
                onClick={() => onGo(crumb.path)}
              >
                {crumb.label}
              </button>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

const stateTones: Readonly<Record<FileTransfer['state'], Tone>> = {
  waiting: 'info',
  running: 'info',
  verifying: 'info',
  done: 'ok',
  failed: 'danger',
  cancelled: 'warn',
};

function timeLeft(transfer: FileTransfer): string | undefined {
  if (transfer.state !== 'running' || transfer.totalBytes === undefined || transfer.rate <= 0) {
    return undefined;
  }
  const seconds = Math.max(0, Math.round((transfer.totalBytes - transfer.bytes) / transfer.rate));
  return seconds >= 60
    ? `${Math.floor(seconds / 60)} min ${seconds % 60} s left`
    : `${seconds} s left`;
}

function TransferItem({ transfer }: { transfer: FileTransfer }) {
  const model = useModel();
  const label = `${transfer.direction === 'download' ? 'Download of' : 'Upload of'} ${transfer.fileName}`;
  const live =
    transfer.state === 'running' || transfer.state === 'waiting' || transfer.state === 'verifying';
  const left = timeLeft(transfer);
  return (
    <li className="files-transfer">
      <div className="files-transfer-head">
        <span className="files-transfer-name">{label}</span>
        <Badge tone={stateTones[transfer.state]}>
          {transfer.state === 'verifying' ? 'verifying…' : transfer.state}
        </Badge>
        {transfer.checksum === 'match' && (
          <Badge tone="ok" title={`sha256 ${transfer.sha256 ?? ''}`}>
            sha256 ✓
          </Badge>
        )}
      </div>
      <progress
        aria-label={label}
        max={transfer.totalBytes ?? undefined}
        value={
          transfer.totalBytes !== undefined
            ? Math.min(transfer.bytes, transfer.totalBytes)
            : undefined
        }
      />
      <div className="files-transfer-facts">
        {formatBytes(transfer.bytes)}
        {transfer.totalBytes !== undefined && ` of ${formatBytes(transfer.totalBytes)}`}
        {live && transfer.rate > 0 && ` · ${formatBytes(transfer.rate)}/s`}
        {left !== undefined && ` · ${left}`}
        {transfer.state === 'verifying' && ' · every byte moved, checking its sha256'}
        {` · ${transfer.method}${transfer.via === 'debug' ? ' through the debug container' : ''}`}
      </div>
      {transfer.error !== undefined && (
        <div className="files-transfer-error">{transfer.error.message}</div>
      )}
      <div className="files-transfer-actions">
        {live && (
          <Button small onClick={() => void filesOf(model).cancel(transfer.transferId)}>
            Cancel
          </Button>
        )}
        <CopyButton text={transfer.crictl} what="the crictl command" label="Copy as crictl" />
      </div>
    </li>
  );
}

/** A container's files: a directory at a time, downloads, uploads (also by drop). */
export function FilesView() {
  const model = useModel();
  const feature = filesOf(model);
  const target = useStore(feature.store, (state) => state.target);
  const path = useStore(feature.store, (state) => state.path);
  const rows = useStore(feature.store, (state) => state.rows);
  const listing = useStore(feature.store, (state) => state.listing);
  const loading = useStore(feature.store, (state) => state.loading);
  const error = useStore(feature.store, (state) => state.error);
  const selectedKey = useStore(feature.store, (state) => state.selectedKey);
  const transfers = useStore(feature.store, (state) => state.transfers);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [dropping, setDropping] = useState(false);
  const selected = rows.find((row) => row.key === selectedKey);
  const mine = transfers
    .filter(
      (t) =>
        target !== undefined && t.containerId === target.containerId && t.nodeId === target.nodeId,
    )
    .slice()
    .reverse();

  if (target === undefined) {
    return (
      <div className="view files-view">
        <EmptyState icon="file" title="No container chosen">
          Files on a container (its row or its details) shows its files here: browse them, download
          a file or a directory, upload files by choosing or dropping them.
        </EmptyState>
      </div>
    );
  }

  const open = (key: string): void => {
    const row = rows.find((r) => r.key === key);
    if (row === undefined) return;
    if (row.type === 'directory') void feature.navigate(joinPath(path, row.name));
    else feature.store.setState({ selectedKey: key });
  };
  const canDownload =
    selected !== undefined &&
    selected.undecodable !== true &&
    (selected.type === 'file' ||
      selected.type === 'symlink' ||
      (selected.type === 'directory' && listing?.access.tar === true));

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Backspace' && path !== '/') {
      event.preventDefault();
      void feature.navigate(parentOf(path));
    }
  };
  const onDrop = (event: DragEvent): void => {
    event.preventDefault();
    setDropping(false);
    void itemsFromDrop(event.dataTransfer).then((items) => feature.upload(items));
  };

  return (
    <div
      className={dropping ? 'files-drop dropping' : 'files-drop'}
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) {
          event.preventDefault();
          setDropping(true);
        }
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
    >
      <TableView<FileRow>
        className="files-view"
        toolbar={
          <Toolbar label={`Files of ${target.containerName}`}>
            <Breadcrumb path={path} onGo={(to) => void feature.navigate(to)} />
            <ToolbarStatus>
              {loading
                ? 'Listing…'
                : `${formatCount(rows.length)} entr${rows.length === 1 ? 'y' : 'ies'}${listing?.truncated === true ? ' (the first ones)' : ''}`}
            </ToolbarStatus>
            <Button
              icon="arrowLeft"
              disabled={path === '/'}
              onClick={() => void feature.navigate(parentOf(path))}
            >
              Up
            </Button>
            <Button icon="refresh" onClick={() => void feature.refresh()}>
              Refresh
            </Button>
            <Button
              icon="download"
              disabled={!canDownload}
              onClick={() => selected !== undefined && void feature.download(selected)}
            >
              {selected?.type === 'directory' ? 'Download as .tar' : 'Download'}
            </Button>
            <Button icon="file" onClick={() => filesInput.current?.click()}>
              Upload files…
            </Button>
            <Button
              icon="file"
              disabled={listing?.access.tar !== true}
              onClick={() => folderInput.current?.click()}
            >
              Upload a folder…
            </Button>
            <input
              ref={filesInput}
              type="file"
              multiple
              hidden
              aria-label="Files to upload"
              onChange={(event) => {
                void feature.upload(itemsFromInput(event.currentTarget.files));
                event.currentTarget.value = '';
              }}
            />
            <input
              ref={folderInput}
              type="file"
              hidden
              aria-label="A folder to upload"
              {...{ webkitdirectory: '' }}
              onChange={(event) => {
                void feature.upload(itemsFromInput(event.currentTarget.files));
                event.currentTarget.value = '';
              }}
            />
          </Toolbar>
        }
        banners={
          <>
            {error !== undefined && <ErrorBanner error={error} title={`Listing ${path}`} />}
            {listing?.access.note !== undefined && <InfoBanner>{listing.access.note}</InfoBanner>}
          </>
        }
        label={`Files in ${path}`}
        rows={rows}
        columns={columns}
        selection={{
          key: selectedKey,
          select: (key) => feature.store.setState({ selectedKey: key }),
          open,
          close: () => feature.store.setState({ selectedKey: undefined }),
        }}
        onKeyDown={onKeyDown}
        empty={
          loading ? (
            <LoadingState>Listing {path}…</LoadingState>
          ) : error !== undefined ? undefined : (
            <EmptyState icon="file" title="Empty directory">
              Drop files here, or Upload files…, to put them in {path}.
            </EmptyState>
          )
        }
        detail={
          mine.length > 0 && (
            <section className="files-transfers" aria-label="Transfers">
              <h2>Transfers</h2>
              <ul>
                {mine.map((transfer) => (
                  <TransferItem key={transfer.transferId} transfer={transfer} />
                ))}
              </ul>
            </section>
          )
        }
        detailPlacement="below"
      />
    </div>
  );
}
