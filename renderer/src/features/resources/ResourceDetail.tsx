import { useMemo, useRef, type ReactNode } from 'react';
import { useResources, useResourceViews } from '../../app/context';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { LoadingState } from '../../ui/EmptyState';
import { DetailPane } from '../../ui/view/DetailPane';
import { Age, NodeName } from './cells';
import { resourceKindViews, type ResourceKindView } from './kinds';
import type { ResourceKind, RowsByKind } from './model';
import { useAllRows } from './use-rows';
import { useResourceDetail, type DetailState, type DetailsByKind } from './use-detail';
import { detailWidthBounds } from './view-store';

/** Loading / refreshing / failed around a detail body. */
function DetailBody<K extends ResourceKind>({
  detail,
  children,
}: {
  detail: DetailState<K> | undefined;
  children: (value: DetailsByKind[K]) => ReactNode;
}) {
  if (detail === undefined) return null;
  const value =
    detail.state === 'loaded'
      ? detail.detail
      : detail.state === 'failed'
        ? detail.previous
        : undefined;
  return (
    <>
      {detail.state === 'failed' && (
        <ErrorBanner error={detail.error} title="Could not read the details" />
      )}
      {value === undefined && detail.state === 'loading' && (
        <LoadingState>Reading status from the runtime…</LoadingState>
      )}
      {value !== undefined && children(value)}
    </>
  );
}

/** A row's actions above its detail (loading, loaded, or failed with what it last had). */
function KindDetail<K extends ResourceKind>({
  view,
  row,
}: {
  view: ResourceKindView<K>;
  row: RowsByKind[K];
}) {
  const item = useResources((state) => state.index[view.kind].get(row.key));
  const detail = useResourceDetail(view.kind, item);
  return (
    <>
      <div className="detail-actions">
        <view.Actions row={row} />
      </div>
      <div className="detail-body">
        <DetailBody<K> detail={detail}>
          {(value) => <view.Body row={row} detail={value} />}
        </DetailBody>
      </div>
    </>
  );
}

/**
 * The side pane for the open resource, drawn from its kind's parts. When the resource
 * disappears (removed here or elsewhere) the pane says so instead of silently showing
 * stale data.
 */
export function ResourceDetail<K extends ResourceKind>({ kind }: { kind: K }) {
  const view: ResourceKindView<K> = resourceKindViews[kind];
  const detailKey = useResourceViews((state) =>
    state.detail?.kind === kind ? state.detail.key : undefined,
  );
  const width = useResourceViews((state) => state.detailWidth);
  const setDetailWidth = useResourceViews((state) => state.setDetailWidth);
  const closeDetail = useResourceViews((state) => state.closeDetail);
  const rows = useAllRows(kind);
  const row = useMemo(
    () =>
      detailKey === undefined ? undefined : rows.find((candidate) => candidate.key === detailKey),
    [rows, detailKey],
  );
  // Remember the last row seen, so a resource that disappears keeps its name on screen.
  const lastSeen = useRef<{ key: string; title: string } | undefined>(undefined);
  if (row !== undefined && detailKey !== undefined) {
    lastSeen.current = { key: detailKey, title: view.titleOf(row) };
  }
  if (detailKey === undefined) return null;
  const title =
    row !== undefined
      ? view.titleOf(row)
      : lastSeen.current?.key === detailKey
        ? lastSeen.current.title
        : view.one;
  const created = row === undefined ? undefined : view.createdAt?.(row);
  return (
    <DetailPane
      placement="side"
      label={`${view.one} details`}
      kind={view.one}
      title={title}
      {...(row !== undefined && {
        subtitle: (
          <>
            {created !== undefined && (
              <>
                <Age since={created} /> old ·{' '}
              </>
            )}
            <NodeName nodeId={row.nodeId} />
          </>
        ),
      })}
      width={width}
      bounds={detailWidthBounds}
      onResize={setDetailWidth}
      onClose={closeDetail}
    >
      {row === undefined ? (
        <InfoBanner tone="warn">
          This {view.one.toLowerCase()} no longer exists on its node: it was removed, or its node
          was disconnected.
        </InfoBanner>
      ) : (
        <KindDetail view={view} row={row} />
      )}
    </DetailPane>
  );
}
