import { useCallback, useEffect, useMemo, useRef, type ReactNode, type RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useModel, useNodes, useResources, useResourceViews } from '../../app/context';
import { EmptyState } from '../../ui/EmptyState';
import { formatCount, plural } from '../../ui/format';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Icon } from '../../ui/icons';
import { Splitter } from '../../ui/Splitter';
import { VirtualTable, type VirtualTableHandle } from '../../ui/VirtualTable';
import { connectNode } from '../nodes/actions';
import { downNodesInScope } from '../nodes/nodes-store';
import { hiddenText, NodeDownBanner } from '../nodes/outage';
import { columnsFor } from './columns';
import { DetailPane } from './DetailPane';
import { isFiltered, namespacesOf } from './filter';
import { statesByKind, type ResourceKind, type RowsByKind } from './model';
import { nextSort } from './sort';
import { useAllRows, useHiddenCounts, useVisibleRows } from './use-rows';
import { detailWidthBounds } from './view-store';
import { isEditableTarget } from '../../app/keyboard';

const nouns: Readonly<Record<ResourceKind, [singular: string, plural: string]>> = {
  pods: ['pod', 'pods'],
  containers: ['container', 'containers'],
  images: ['image', 'images'],
};

export interface ResourceViewProps {
  kind: ResourceKind;
  /** Buttons at the right of the toolbar (Pull image…, Run pod…). */
  actions?: ReactNode;
  /** What the empty table suggests doing. */
  emptyAction?: ReactNode;
}

const count = formatCount;

/** Why the table is empty, and what to do about it: never just a blank area. */
function useEmptyState(kind: ResourceKind, total: number, emptyAction: ReactNode): ReactNode {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const loaded = useResources((state) => state.loaded);
  const filter = useResourceViews((state) => state.byKind[kind].filter);
  const hidden = useHiddenCounts(kind);
  const [, plural] = nouns[kind];
  const connected = nodes.filter((node) => node.state === 'connected');
  const scoped =
    scope.kind === 'node' ? nodes.find((node) => node.nodeId === scope.nodeId) : undefined;
  const down = downNodesInScope(nodes, scope);

  // A node that can't be reached has unknown contents, not none (its banner says more).
  const onlyDown = down.length > 0 && (scoped !== undefined || connected.length === 0);
  if (onlyDown) {
    const [first] = down;
    return (
      <EmptyState
        icon="unplug"
        title={
          down.length === 1 && first !== undefined ? `${first.name} is down` : 'No node answers'
        }
      >
        {down.length === 1 && first !== undefined
          ? `${hiddenText(hidden.get(first.nodeId) ?? 0, nouns[kind])} Porthole is reconnecting.`
          : `Porthole is reconnecting to ${down.map((node) => node.name).join(', ')}.`}
      </EmptyState>
    );
  }
  if (scoped !== undefined && scoped.state !== 'connected') {
    return (
      <EmptyState
        icon="unplug"
        title={`${scoped.name} is not connected`}
        actions={
          <>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => void connectNode(model, scoped)}
            >
              <Icon name="plug" size={14} />
              Connect
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => model.nodes.getState().setScope({ kind: 'all' })}
            >
              Show all nodes
            </button>
          </>
        }
      >
        Connect it to see its {plural}, or pick another node at the top.
      </EmptyState>
    );
  }
  if (connected.length === 0) {
    return (
      <EmptyState
        icon="nodes"
        title="No node connected"
        actions={
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => model.ui.getState().navigate('nodes')}
          >
            <Icon name="nodes" size={14} />
            Go to Nodes
          </button>
        }
      >
        Connect a node on the Nodes page to see its {plural}. No cluster at hand? Start the lab with{' '}
        <code>npm run lab -- up</code>.
      </EmptyState>
    );
  }
  const waiting =
    scope.kind === 'node'
      ? !loaded.has(scope.nodeId)
      : connected.every((node) => !loaded.has(node.nodeId));
  if (waiting) {
    return (
      <div className="empty-state" role="status">
        <span className="spinner" />
        Reading {plural} from the runtime…
      </div>
    );
  }
  if (total > 0 && isFiltered(filter)) {
    return (
      <EmptyState
        icon="search"
        title={`No ${plural} match the filter`}
        actions={
          <button
            type="button"
            className="btn"
            onClick={() => model.resourceViews.getState().clearFilter(kind)}
          >
            Clear filter
          </button>
        }
      >
        {count(total)} {total === 1 ? nouns[kind][0] : plural} hidden by the filter.
      </EmptyState>
    );
  }
  if (down.length > 0) {
    // Some nodes answer and have none; the others' rows are held back until they are back.
    return (
      <EmptyState icon={kind} title={`No ${plural} to show`}>
        None on {connected.map((node) => node.name).join(', ')}.{' '}
        {down.map((node) => node.name).join(', ')} {down.length === 1 ? 'is' : 'are'} down: {plural}{' '}
        there show again once Porthole has reconnected.
      </EmptyState>
    );
  }
  const where =
    scoped?.name ?? (connected.length === 1 ? connected[0]?.name : 'the connected nodes');
  return (
    <EmptyState icon={kind} title={`No ${plural} on ${where ?? 'this node'}`} actions={emptyAction}>
      {kind === 'images'
        ? 'The runtime holds no images yet. Pull one to get started.'
        : `The runtime runs no ${plural} right now. Run a pod from a spec to try things out.`}
    </EmptyState>
  );
}

/** One banner per node in scope that is down and reconnecting, with what it holds back. */
function DownNodes({ kind }: { kind: ResourceKind }) {
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  const hidden = useHiddenCounts(kind);
  return (
    <>
      {downNodesInScope(nodes, scope).map((node) => (
        <NodeDownBanner
          key={node.nodeId}
          node={node}
          rows={{ hidden: hidden.get(node.nodeId) ?? 0, nouns: nouns[kind] }}
        />
      ))}
    </>
  );
}

function StreamErrors() {
  const model = useModel();
  const errors = useResources((state) => state.errors);
  const nodes = useNodes((state) => state.nodes);
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <>
      {entries.map(([nodeId, error]) => (
        <ErrorBanner
          key={nodeId}
          error={error}
          title={`Resources of ${nodes.find((node) => node.nodeId === nodeId)?.name ?? nodeId} stopped updating`}
          actions={
            <button
              type="button"
              className="btn btn-small"
              onClick={() => model.resources.retry(nodeId)}
            >
              <Icon name="refresh" size={14} />
              Retry
            </button>
          }
        />
      ))}
    </>
  );
}

function Toolbar({
  kind,
  shown,
  total,
  selectorError,
  filterInput,
  focusTable,
  actions,
}: {
  kind: ResourceKind;
  shown: number;
  total: number;
  selectorError: string | undefined;
  filterInput: RefObject<HTMLInputElement | null>;
  /** Leaves the filter for the table (Enter, ↓ or Esc in the filter). */
  focusTable: () => void;
  actions: ReactNode;
}) {
  const filter = useResourceViews((state) => state.byKind[kind].filter);
  const setFilter = useResourceViews((state) => state.setFilter);
  const clearFilter = useResourceViews((state) => state.clearFilter);
  const all = useAllRows(kind);
  const namespaces = useMemo(() => (kind === 'images' ? [] : namespacesOf(all)), [kind, all]);
  const podName = useResources((state) =>
    filter.podKey === undefined
      ? undefined
      : (state.index.pods.get(filter.podKey)?.name ?? 'removed pod'),
  );
  const [singular, pluralNoun] = nouns[kind];

  return (
    <div className="toolbar" role="search" aria-label={`Filter ${pluralNoun}`}>
      <div className="search-field">
        <Icon name="search" size={14} />
        <input
          ref={filterInput}
          className="input"
          type="search"
          placeholder={`Filter ${pluralNoun}…  ( / )`}
          aria-label={`Filter ${pluralNoun} by text`}
          value={filter.text}
          spellCheck={false}
          onChange={(event) => setFilter(kind, { text: event.target.value })}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              if (filter.text !== '') setFilter(kind, { text: '' });
              else focusTable();
            } else if (event.key === 'Enter' || event.key === 'ArrowDown') {
              event.preventDefault();
              focusTable();
            }
          }}
        />
      </div>
      {kind !== 'images' && (
        <input
          className="input selector-input"
          placeholder="labels: app=web,tier!=db"
          aria-label="Label selector"
          aria-invalid={selectorError !== undefined}
          title="A Kubernetes label selector: k=v, k!=v, k in (a,b), k notin (a), k, !k — comma-separated"
          spellCheck={false}
          value={filter.labels}
          onChange={(event) => setFilter(kind, { labels: event.target.value })}
        />
      )}
      {kind !== 'images' && (
        <select
          className="select"
          aria-label="Namespace"
          value={filter.namespace}
          onChange={(event) => setFilter(kind, { namespace: event.target.value })}
        >
          <option value="">All namespaces</option>
          {filter.namespace !== '' && !namespaces.includes(filter.namespace) && (
            <option value={filter.namespace}>{filter.namespace}</option>
          )}
          {namespaces.map((namespace) => (
            <option key={namespace} value={namespace}>
              {namespace}
            </option>
          ))}
        </select>
      )}
      <select
        className="select"
        aria-label="State"
        value={filter.state}
        onChange={(event) => setFilter(kind, { state: event.target.value })}
      >
        <option value="">All states</option>
        {statesByKind[kind].map((state) => (
          <option key={state} value={state}>
            {state === 'notready' ? 'not ready' : state}
          </option>
        ))}
      </select>
      {filter.podKey !== undefined && (
        <span className="chip" title="Only the containers of this pod">
          pod: {podName}
          <button
            type="button"
            className="btn btn-small btn-ghost btn-icon"
            aria-label="Show containers of all pods"
            onClick={() => setFilter(kind, { podKey: undefined })}
          >
            <Icon name="close" size={12} />
          </button>
        </span>
      )}
      {isFiltered(filter) && (
        <button type="button" className="btn btn-small btn-ghost" onClick={() => clearFilter(kind)}>
          Clear
        </button>
      )}
      {selectorError !== undefined && (
        <span className="filter-error" role="alert">
          {selectorError}
        </span>
      )}
      <span className="toolbar-spacer" />
      <span className="toolbar-status" aria-live="polite">
        {shown === total
          ? plural(total, singular, pluralNoun)
          : `${count(shown)} of ${plural(total, singular, pluralNoun)}`}
      </span>
      {actions}
    </div>
  );
}

/**
 * One resource table with its filters and detail pane: the Pods, Containers and Images
 * screens are this view with different columns and actions.
 */
export function ResourceView({ kind, actions, emptyAction }: ResourceViewProps) {
  const model = useModel();
  const { rows, total, error } = useVisibleRows(kind);
  const { selectedKey, sort, detailOpen, detailWidth } = useResourceViews(
    useShallow((state) => ({
      selectedKey: state.byKind[kind].selectedKey,
      sort: state.byKind[kind].sort,
      detailOpen: state.detail?.kind === kind,
      detailWidth: state.detailWidth,
    })),
  );
  const scope = useNodes((state) => state.scope);
  const connectedCount = useNodes(
    (state) => state.nodes.filter((node) => node.state === 'connected').length,
  );
  const showNode = scope.kind === 'all' && connectedCount > 1;
  const columns = useMemo(() => columnsFor(kind, showNode), [kind, showNode]);
  const filterInput = useRef<HTMLInputElement>(null);
  const table = useRef<VirtualTableHandle>(null);
  const empty = useEmptyState(kind, total, emptyAction);
  const [, plural] = nouns[kind];

  const views = model.resourceViews.getState();
  const select = useCallback((key: string) => views.select(kind, key), [views, kind]);
  const open = useCallback((key: string) => views.openDetail(kind, key), [views, kind]);
  const onSort = useCallback(
    (column: string) =>
      views.setSort(kind, nextSort(model.resourceViews.getState().byKind[kind].sort, column)),
    [model, views, kind],
  );

  // The view's shortcuts, wherever focus is (except in a field or a dialog).
  const latest = useRef({ rows, selectedKey, detailOpen });
  latest.current = { rows, selectedKey, detailOpen };
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const ui = model.ui.getState();
      if (ui.dialog !== undefined || ui.paletteOpen) return;
      const { rows: current, selectedKey: selected, detailOpen: paneOpen } = latest.current;
      if (event.key === 'Escape' && paneOpen) {
        event.preventDefault();
        model.resourceViews.getState().closeDetail();
        return;
      }
      if (isEditableTarget(event.target)) return;
      const index = selected === undefined ? -1 : current.findIndex((row) => row.key === selected);
      const move = (to: number): void => {
        const row = current[Math.max(0, Math.min(current.length - 1, to))];
        if (row !== undefined) model.resourceViews.getState().select(kind, row.key);
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
          if (selected === undefined || event.target instanceof HTMLButtonElement) return;
          model.resourceViews.getState().openDetail(kind, selected);
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [model, kind]);

  return (
    <div className="view">
      <Toolbar
        kind={kind}
        shown={rows.length}
        total={total}
        selectorError={error}
        filterInput={filterInput}
        focusTable={() => table.current?.focus()}
        actions={actions}
      />
      <DownNodes kind={kind} />
      <StreamErrors />
      <div className="split">
        <div className="split-main">
          <VirtualTable<RowsByKind[typeof kind]>
            label={plural[0]?.toUpperCase() + plural.slice(1)}
            rows={rows}
            columns={columns}
            selectedKey={selectedKey}
            sort={sort}
            onSort={onSort}
            onSelect={select}
            onActivate={open}
            openOnClick
            handle={table}
            empty={empty}
          />
        </div>
        {detailOpen && (
          <>
            <Splitter
              label="Resize the details pane"
              width={detailWidth}
              min={detailWidthBounds.min}
              max={detailWidthBounds.max}
              onResize={(width) => model.resourceViews.getState().setDetailWidth(width)}
            />
            <DetailPane kind={kind} width={detailWidth} />
          </>
        )}
      </div>
    </div>
  );
}
