import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { DiscoveryReport } from '../../../../shared/contract';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { DiscoveredEndpoint } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatCount, plural } from '../../ui/format';
import { Button } from '../../ui/Button';
import { Icon } from '../../ui/icons';
import { openNodeForm } from './actions';
import { labUpCommand, summarizeDiscovery } from './discovery-summary';
import { filterNodes, groupingLabels, groupNodes, sortedByName, type NodeGrouping } from './fleet';
import { NodeCardList } from './NodeCardList';
import { nodeListOf } from './node-list-store';
import { FilterField, SelectFilter } from '../../ui/view/Toolbar';

/** Sockets discovery found but could not use: worth showing, with the reason and the fix. */
function unusable(report: DiscoveryReport, known: ReadonlySet<string>): DiscoveredEndpoint[] {
  return report.endpoints.filter(
    (endpoint) =>
      endpoint.probe.state !== 'ready' &&
      endpoint.probe.state !== 'absent' &&
      !known.has(endpoint.endpoint),
  );
}

function DiscoveryFindings({ endpoints }: { endpoints: readonly DiscoveredEndpoint[] }) {
  if (endpoints.length === 0) return null;
  return (
    <>
      <h3 className="subheading">Found on this machine, but not usable</h3>
      <ul className="discovery-list list-plain">
        {endpoints.map((endpoint) => (
          <li key={endpoint.endpoint} className="discovery-item">
            <Badge tone={endpoint.probe.state === 'refused' ? 'warn' : 'danger'}>
              {endpoint.probe.state}
            </Badge>
            <div className="banner-body">
              <code>{endpoint.endpoint}</code> <span className="faint">({endpoint.origin})</span>
              {endpoint.probe.state !== 'ready' && (
                <>
                  <div>{endpoint.probe.message}</div>
                  {endpoint.probe.hint !== undefined && (
                    <div className="muted">{endpoint.probe.hint}</div>
                  )}
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * What the last Discover did, always: the runtimes it found, or every place it looked and
 * what it found there, so a Discover that finds nothing still says something.
 */
function DiscoveryOutcome({
  report,
  at,
  same,
}: {
  report: DiscoveryReport;
  at: number;
  /** It found what the Discover before it found. */
  same: boolean;
}) {
  const nodes = useNodes((state) => state.nodes);
  const summary = summarizeDiscovery(
    report,
    (endpoint) => nodes.find((node) => node.kind === 'local' && node.endpoint === endpoint)?.name,
  );
  const time = new Date(at).toLocaleTimeString();
  const count = summary.found.length;
  return (
    <div className="discovery-outcome" role="status" aria-label="Discovery">
      <Icon name={count > 0 ? 'check' : 'info'} size={14} />
      <div>
        {count > 0 ? (
          <>
            Discover found {plural(count, 'runtime')}:{' '}
            {summary.found.map((found, index) => (
              <span key={found.endpoint}>
                {index > 0 && ', '}
                <span title={found.endpoint}>{found.name}</span>
              </span>
            ))}
            {same ? ', as before' : ''} <span className="faint">({time})</span>
          </>
        ) : (
          <>
            Discover found no runtime{same ? ', as before' : ''}{' '}
            <span className="faint">({time})</span>. It looked at:
          </>
        )}
        {count === 0 && (
          <ul className="discovery-places">
            {summary.lookedAt.map((place) => (
              <li key={place.where}>
                <code>{place.where}</code> <span className="muted">— {place.outcome}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

export function NodesView() {
  const model = useModel();
  const nodes = useNodes((state) => state.nodes);
  const loaded = useNodes((state) => state.loaded);
  const error = useNodes((state) => state.error);
  const [report, setReport] = useState<
    { report: DiscoveryReport; at: number; same: boolean } | undefined
  >();
  const [discoveryError, setDiscoveryError] = useState<AppErrorData | undefined>();
  const [discovering, setDiscovering] = useState(false);

  const discover = useCallback(async () => {
    setDiscovering(true);
    try {
      const next = await model.client.services.nodes.discover();
      const found = (candidate: DiscoveryReport): string =>
        summarizeDiscovery(candidate)
          .found.map((entry) => entry.endpoint)
          .join('\n');
      setReport((previous) => ({
        report: next,
        at: Date.now(),
        same: previous !== undefined && found(previous.report) === found(next),
      }));
      setDiscoveryError(undefined);
    } catch (failure) {
      setDiscoveryError(toAppErrorData(failure));
    } finally {
      setDiscovering(false);
    }
  }, [model]);

  useEffect(() => {
    void discover();
  }, [discover]);

  const list = nodeListOf(model).store;
  const query = useStore(list, (state) => state.query);
  const grouping = useStore(list, (state) => state.grouping);
  const collapsed = useStore(list, (state) => state.collapsed);
  const scroller = useRef<HTMLDivElement>(null);
  const sorted = sortedByName(nodes);
  const found = useMemo(() => filterNodes(sorted, query), [sorted, query]);
  const groups = useMemo(() => groupNodes(found, grouping), [found, grouping]);
  // Each group's size before the search, for "3 of 120" in its heading.
  const totals = useMemo(
    () =>
      found === sorted
        ? new Map<string, number>()
        : new Map(groupNodes(sorted, grouping).map((group) => [group.id, group.nodes.length])),
    [found, sorted, grouping],
  );
  // A node to reveal (just added) comes out of a filter that hides it and a collapsed group.
  const revealing = useStore(list, (state) => state.revealing);
  useEffect(() => {
    if (revealing === undefined || !sorted.some((node) => node.nodeId === revealing)) return;
    const state = list.getState();
    if (!found.some((node) => node.nodeId === revealing)) state.setQuery('');
    const group = groups.find((candidate) =>
      candidate.nodes.some((node) => node.nodeId === revealing),
    );
    if (group !== undefined && collapsed.has(group.id)) state.toggle(group.id);
  }, [revealing, sorted, found, groups, collapsed, list]);
  const groupIds = groups.map((group) => group.id);
  const allCollapsed = groupIds.length > 0 && groupIds.every((id) => collapsed.has(id));

  const connected = nodes.filter((node) => node.state === 'connected').length;
  const known = new Set(nodes.map((node) => node.endpoint));
  const findings = report === undefined ? [] : unusable(report.report, known);
  const labStateFile =
    report === undefined ? undefined : summarizeDiscovery(report.report).labStateFile;
  const discoverButton = (primary: boolean) => (
    <button
      type="button"
      className={primary ? 'btn btn-primary' : 'btn'}
      disabled={discovering}
      onClick={() => void discover()}
      title="Look for runtimes on this machine again: the sockets crictl knows, crictl.yaml, and Porthole's lab"
    >
      <Icon name="refresh" size={14} />
      {discovering ? 'Discovering…' : 'Discover'}
    </button>
  );

  return (
    <div className="view">
      <div className="toolbar">
        <Button variant="primary" icon="plus" onClick={() => openNodeForm(model)}>
          Add node
        </Button>
        {discoverButton(false)}
        {nodes.length > 0 && (
          <>
            <FilterField
              label="Filter nodes"
              placeholder="Filter nodes by name, endpoint, state…"
              value={query}
              onChange={(text) => list.getState().setQuery(text)}
              onKeyDown={(event) => {
                if (event.key === 'Escape' && query !== '') {
                  event.preventDefault();
                  event.stopPropagation();
                  list.getState().setQuery('');
                }
              }}
            />
            <SelectFilter<NodeGrouping>
              label="Group nodes by"
              value={grouping}
              choices={(Object.keys(groupingLabels) as NodeGrouping[]).map((value) => ({
                value,
                label:
                  value === 'none'
                    ? groupingLabels[value]
                    : `By ${groupingLabels[value].toLowerCase()}`,
              }))}
              onChange={(next) => list.getState().setGrouping(next)}
            />
            {grouping !== 'none' && (
              <Button
                small
                variant="ghost"
                onClick={() => list.getState().setAllCollapsed(groupIds, !allCollapsed)}
              >
                {allCollapsed ? 'Expand all' : 'Collapse all'}
              </Button>
            )}
          </>
        )}
        <span className="toolbar-spacer" />
        <span className="toolbar-status">
          {found !== sorted && `${formatCount(found.length)} shown · `}
          {formatCount(connected)} of {plural(nodes.length, 'node')} connected
        </span>
      </div>
      {error !== undefined && <ErrorBanner error={error} title="The node list stopped updating" />}
      {discoveryError !== undefined && (
        <ErrorBanner error={discoveryError} title="Discovery failed" tone="warn" />
      )}
      {report !== undefined && (
        <DiscoveryOutcome report={report.report} at={report.at} same={report.same} />
      )}
      {report !== undefined && report.report.warnings.length > 0 && (
        <InfoBanner tone="warn">
          {report.report.warnings.map((warning) => (
            <div key={warning}>{warning}</div>
          ))}
        </InfoBanner>
      )}
      {!loaded ? (
        <div className="empty-state" role="status">
          <span className="spinner" />
          Loading nodes…
        </div>
      ) : nodes.length === 0 ? (
        <>
          <EmptyState
            icon="nodes"
            title="No runtime found"
            actions={
              <>
                {discoverButton(true)}
                <Button icon="plus" onClick={() => openNodeForm(model)}>
                  Add node
                </Button>
              </>
            }
          >
            Porthole found no CRI socket on this machine. Add a node with its runtime socket, or
            start Porthole's lab with <code>{labUpCommand(labStateFile)}</code> and press Discover:
            it reads the lab's runtimes from{' '}
            <code>{labStateFile ?? '/tmp/porthole-lab/lab.json'}</code>.
          </EmptyState>
          {findings.length > 0 && (
            <div className="nodes-body">
              <DiscoveryFindings endpoints={findings} />
            </div>
          )}
        </>
      ) : (
        <div className="nodes-body" ref={scroller}>
          {found.length === 0 ? (
            <EmptyState
              icon="search"
              title="No node matches"
              actions={
                <Button onClick={() => list.getState().setQuery('')}>Clear the filter</Button>
              }
            >
              No node's name, endpoint or state has “{query.trim()}”.
            </EmptyState>
          ) : (
            <NodeCardList
              groups={groups}
              grouped={grouping !== 'none'}
              collapsed={collapsed}
              totals={totals}
              onToggle={(groupId) => list.getState().toggle(groupId)}
              scroller={scroller}
              reveal={revealing}
              onRevealed={() => list.getState().reveal(undefined)}
            />
          )}
          <DiscoveryFindings endpoints={findings} />
        </div>
      )}
    </div>
  );
}
