import { useMemo, type RefObject } from 'react';
import { useNodes, useResources, useResourceViews } from '../../app/context';
import { isFollowed } from '../nodes/nodes-store';
import { Icon } from '../../ui/icons';
import { formatCount, plural } from '../../ui/format';
import {
  ClearFilters,
  FilterField,
  SelectFilter,
  Toolbar,
  ToolbarStatus,
} from '../../ui/view/Toolbar';
import { isFiltered, namespacesOf } from './filter';
import type { ResourceKindView } from './kinds';
import { statesByKind, type ResourceKind } from './model';
import { useAllRows } from './use-rows';

/** A resource table's filters (text, labels, namespace, state, pod), its count and actions. */
export function ResourceToolbar<K extends ResourceKind>({
  view,
  shown,
  total,
  selectorError,
  filterInput,
  focusTable,
}: {
  view: ResourceKindView<K>;
  shown: number;
  total: number;
  selectorError: string | undefined;
  filterInput: RefObject<HTMLInputElement | null>;
  /** Leaves the filter for the table (Enter, ↓ or Esc in the filter). */
  focusTable: () => void;
}) {
  const { kind } = view;
  const filter = useResourceViews((state) => state.byKind[kind].filter);
  const setFilter = useResourceViews((state) => state.setFilter);
  const clearFilter = useResourceViews((state) => state.clearFilter);
  const all = useAllRows(kind);
  const namespaces = useMemo(
    () => (view.namespaced ? namespacesOf(all) : []),
    [view.namespaced, all],
  );
  const podName = useResources((state) =>
    filter.podKey === undefined
      ? undefined
      : (state.index.pods.get(filter.podKey)?.name ?? 'removed pod'),
  );
  // The Node column's filter: where rows of several nodes are shown, or it is already set.
  const showNodeFilter = useNodes(
    (state) =>
      filter.node !== '' ||
      (state.scope.kind === 'all' && state.nodes.filter(isFollowed).length > 1),
  );
  const [singular, pluralNoun] = view.nouns;
  const namespaceChoices = useMemo(
    () => [
      { value: '', label: 'All namespaces' },
      // A namespace chosen before its last row went: still shown, so the filter says so.
      ...(filter.namespace !== '' && !namespaces.includes(filter.namespace)
        ? [{ value: filter.namespace, label: filter.namespace }]
        : []),
      ...namespaces.map((namespace) => ({ value: namespace, label: namespace })),
    ],
    [filter.namespace, namespaces],
  );
  const stateChoices = useMemo(
    () => [
      { value: '', label: 'All states' },
      ...statesByKind[kind].map((state) => ({
        value: state,
        label: state === 'notready' ? 'not ready' : state,
      })),
    ],
    [kind],
  );

  return (
    <Toolbar label={`Filter ${pluralNoun}`}>
      <FilterField
        inputRef={filterInput}
        label={`Filter ${pluralNoun} by text`}
        placeholder={`Filter ${pluralNoun}…  ( / )`}
        value={filter.text}
        onChange={(text) => setFilter(kind, { text })}
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
      {view.namespaced && (
        <>
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
          <SelectFilter
            label="Namespace"
            value={filter.namespace}
            choices={namespaceChoices}
            onChange={(namespace) => setFilter(kind, { namespace })}
          />
        </>
      )}
      {showNodeFilter && (
        <input
          className="input node-filter-input"
          type="search"
          placeholder="node: name…"
          aria-label="Filter by node name"
          title="Only the rows of nodes whose name has these words (e.g. eu-west), however many nodes that is"
          spellCheck={false}
          value={filter.node}
          onChange={(event) => setFilter(kind, { node: event.target.value })}
        />
      )}
      <SelectFilter
        label="State"
        value={filter.state}
        choices={stateChoices}
        onChange={(state) => setFilter(kind, { state })}
      />
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
      {isFiltered(filter) && <ClearFilters onClear={() => clearFilter(kind)} />}
      {selectorError !== undefined && (
        <span className="filter-error" role="alert">
          {selectorError}
        </span>
      )}
      <ToolbarStatus>
        {shown === total
          ? plural(total, singular, pluralNoun)
          : `${formatCount(shown)} of ${plural(total, singular, pluralNoun)}`}
      </ToolbarStatus>
      <view.Create />
    </Toolbar>
  );
}
