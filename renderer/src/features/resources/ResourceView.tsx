import { useCallback, useEffect, useMemo, useRef, type RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useModel, useNodes, useResources, useResourceViews } from '../../app/context';
import { isEditableTarget } from '../../app/keyboard';
import { Button } from '../../ui/Button';
import { rescueFocus } from '../../ui/focus';
import { ErrorBanner } from '../../ui/ErrorBanner';
import type { VirtualTableHandle } from '../../ui/table/VirtualTable';
import { TableView } from '../../ui/view/TableView';
import { DownNodeBanners } from '../nodes/outage';
import { useEmptyState } from './empty';
import { resourceKindViews, type ResourceKindView } from './kinds';
import type { ResourceKind, RowsByKind } from './model';
import { ResourceDetail } from './ResourceDetail';
import { ResourceToolbar } from './ResourceToolbar';
import { nextSort } from './sort';
import { useHiddenCounts, useVisibleRows } from './use-rows';

/** A node whose resource stream failed: which, why, and a retry. */
function StreamErrors() {
  const model = useModel();
  const errors = useResources((state) => state.errors);
  const nodes = useNodes((state) => state.nodes);
  return Object.entries(errors).map(([nodeId, error]) => (
    <ErrorBanner
      key={nodeId}
      error={error}
      title={`Resources of ${nodes.find((node) => node.nodeId === nodeId)?.name ?? nodeId} stopped updating`}
      actions={
        <Button small icon="refresh" onClick={() => model.resources.retry(nodeId)}>
          Retry
        </Button>
      }
    />
  ));
}

/**
 * The view's keys, wherever focus is (except in a field or a dialog): / filters, j and k
 * move, Enter opens the details, Esc closes them.
 */
function useShortcuts<K extends ResourceKind>(
  kind: K,
  rows: readonly RowsByKind[K][],
  filterInput: RefObject<HTMLInputElement | null>,
): void {
  const model = useModel();
  const { selectedKey, detailOpen } = useResourceViews(
    useShallow((state) => ({
      selectedKey: state.byKind[kind].selectedKey,
      detailOpen: state.detail?.kind === kind,
    })),
  );
  const latest = useRef({ rows, selectedKey, detailOpen });
  latest.current = { rows, selectedKey, detailOpen };
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const ui = model.ui.getState();
      if (ui.dialog !== undefined || ui.paletteOpen) return;
      const { rows: current, selectedKey: selected, detailOpen: paneOpen } = latest.current;
      const views = model.resourceViews.getState();
      if (event.key === 'Escape' && paneOpen) {
        event.preventDefault();
        views.closeDetail();
        rescueFocus();
        return;
      }
      if (isEditableTarget(event.target)) return;
      if (event.key !== 'Enter' && !ui.singleKeyShortcuts) return;
      const index = selected === undefined ? -1 : current.findIndex((row) => row.key === selected);
      const move = (to: number): void => {
        const row = current[Math.max(0, Math.min(current.length - 1, to))];
        if (row !== undefined) views.select(kind, row.key);
      };
      switch (event.key) {
        case '/':
          filterInput.current?.focus();
          filterInput.current?.select();
          break;
        case 'j':
          move(index + 1);
          break;
        case 'k':
          move(index < 0 ? 0 : index - 1);
          break;
        case 'Enter':
          // Enter on a control (a button, the skip link) presses it.
          if (
            selected === undefined ||
            event.target instanceof HTMLButtonElement ||
            event.target instanceof HTMLAnchorElement
          )
            return;
          views.openDetail(kind, selected);
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [model, kind, filterInput]);
}

function KindView<K extends ResourceKind>({ view }: { view: ResourceKindView<K> }) {
  const model = useModel();
  const { kind } = view;
  const { rows, total, error } = useVisibleRows(kind);
  const { selectedKey, sort, detailOpen } = useResourceViews(
    useShallow((state) => ({
      selectedKey: state.byKind[kind].selectedKey,
      sort: state.byKind[kind].sort,
      detailOpen: state.detail?.kind === kind,
    })),
  );
  const scope = useNodes((state) => state.scope);
  const connectedCount = useNodes(
    (state) => state.nodes.filter((node) => node.state === 'connected').length,
  );
  const showNode = scope.kind === 'all' && connectedCount > 1;
  const columns = showNode ? view.columns.withNode : view.columns.plain;
  const filterInput = useRef<HTMLInputElement>(null);
  const table = useRef<VirtualTableHandle>(null);
  const empty = useEmptyState(view, total);
  const hidden = useHiddenCounts(kind);
  useShortcuts(kind, rows, filterInput);

  const views = model.resourceViews.getState();
  // Callbacks that outlive a change of selection: the rows are memoised on them.
  const select = useCallback((key: string) => views.select(kind, key), [views, kind]);
  const open = useCallback((key: string) => views.openDetail(kind, key), [views, kind]);
  const selection = useMemo(
    () => ({ key: selectedKey, select, open, close: views.closeDetail }),
    [selectedKey, select, open, views],
  );
  const onSort = useCallback(
    (column: string) =>
      views.setSort(kind, nextSort(model.resourceViews.getState().byKind[kind].sort, column)),
    [model, views, kind],
  );
  const focusTable = useMemo(() => () => table.current?.focus(), []);

  return (
    <TableView<RowsByKind[K]>
      toolbar={
        <ResourceToolbar
          view={view}
          shown={rows.length}
          total={total}
          selectorError={error}
          filterInput={filterInput}
          focusTable={focusTable}
        />
      }
      banners={
        <>
          <DownNodeBanners hidden={hidden} nouns={view.nouns} />
          <StreamErrors />
        </>
      }
      label={view.title}
      rows={rows}
      columns={columns}
      selection={selection}
      sort={sort}
      onSort={onSort}
      openOnClick
      handle={table}
      empty={empty}
      detail={detailOpen && <ResourceDetail kind={kind} />}
    />
  );
}

/**
 * One resource table with its filters and detail pane: the Pods, Containers and Images
 * screens are this view over their kind's columns and detail parts (see kinds/).
 */
export function ResourceView<K extends ResourceKind>({ kind }: { kind: K }) {
  return <KindView view={resourceKindViews[kind]} />;
}
