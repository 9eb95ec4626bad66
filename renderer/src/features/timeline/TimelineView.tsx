import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { TimelineEvent } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { Badge, type Tone } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorBanner } from '../../ui/ErrorBanner';
import {
  ClearFilters,
  FilterField,
  SelectFilter,
  Toolbar,
  ToolbarStatus,
} from '../../ui/view/Toolbar';
import { formatLineTime } from '../logs/LogList';
import {
  timelineControllerOf,
  type TimelineController,
  type TimelineState,
} from './timeline-controller';
import {
  containerSlot,
  crashLoop,
  crashLoops,
  describeEvent,
  emptyFilter,
  isRestart,
  kindFilters,
  visibleEvents,
  zoomLevels,
  type CrashLoop,
} from './timeline-model';
import './timeline.css';

/** Rows drawn in the table at most: the newest; the filters and the zoom find the others. */
const maxRows = 500;

function useController(): TimelineController {
  return timelineControllerOf(useModel());
}

function useTimeline<T>(select: (state: TimelineState) => T): T {
  return useStore(useController().store, select);
}

/** Re-renders every few seconds, so the window keeps ending at now. */
function useNow(intervalMs = 5000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function toneOf(event: TimelineEvent): Tone {
  switch (event.kind) {
    case 'exited':
      return event.exitCode === 0 || event.reason === 'Completed' ? 'neutral' : 'danger';
    case 'created':
      return isRestart(event) ? 'warn' : 'info';
    case 'started':
    case 'pod-ready':
      return 'ok';
    case 'pod-notready':
      return 'warn';
    case 'removed':
    case 'pod-removed':
      return 'neutral';
  }
}

function Filters({ shown, total }: { shown: number; total: number }) {
  const controller = useController();
  const filter = useTimeline((state) => state.filter);
  const nodes = useNodes((state) => state.nodes);
  const nodeChoices = [
    { value: '', label: 'All nodes' },
    ...nodes.map((node) => ({ value: node.nodeId, label: node.name })),
  ];
  const filtered = filter !== emptyFilter;
  return (
    <Toolbar label="Filter the timeline">
      <SelectFilter
        label="Filter by node"
        value={filter.nodeId}
        choices={nodeChoices}
        onChange={(nodeId) => controller.setFilter({ nodeId })}
      />
      <FilterField
        label="Filter by pod"
        placeholder="Pod"
        value={filter.pod}
        onChange={(pod) => controller.setFilter({ pod })}
      />
      <FilterField
        label="Filter by container"
        placeholder="Container"
        value={filter.container}
        onChange={(container) => controller.setFilter({ container })}
      />
      <SelectFilter
        label="Kind of event"
        value={filter.kind}
        choices={kindFilters}
        onChange={(kind) => controller.setFilter({ kind })}
      />
      {filtered && (
        <ClearFilters onClear={() => controller.store.setState({ filter: emptyFilter })} />
      )}
      <ToolbarStatus>
        <span className="timeline-count">
          {shown} of {total} events
        </span>
      </ToolbarStatus>
    </Toolbar>
  );
}

function Zoom() {
  const controller = useController();
  const zoom = useTimeline((state) => state.zoom);
  return (
    <div className="toolbar" role="toolbar" aria-label="Timeline zoom and actions">
      <div className="timeline-zoom" role="group" aria-label="Zoom: how far back">
        <Button
          small
          variant="ghost"
          aria-label="Zoom in"
          disabled={zoom === 0}
          onClick={() => controller.setZoom(zoom - 1)}
        >
          +
        </Button>
        {zoomLevels.map((level, index) => (
          <Button
            key={level.label}
            small
            variant={index === zoom ? 'primary' : 'ghost'}
            aria-pressed={index === zoom}
            onClick={() => controller.setZoom(index)}
          >
            {level.label}
          </Button>
        ))}
        <Button
          small
          variant="ghost"
          aria-label="Zoom out"
          disabled={zoom === zoomLevels.length - 1}
          onClick={() => controller.setZoom(zoom + 1)}
        >
          −
        </Button>
      </div>
      <span className="toolbar-spacer" />
      <Button small icon="download" onClick={() => controller.exportJsonLines()}>
        Export JSON lines
      </Button>
      <Button small variant="ghost" icon="trash" onClick={() => void controller.clear()}>
        Clear timeline
      </Button>
    </div>
  );
}

/**
 * The events as marks along the window (exits stand out): a picture of the table below,
 * which is what assistive technology reads. `+` and `-` on it zoom.
 */
function Strip({
  events,
  from,
  to,
  loops,
}: {
  events: readonly TimelineEvent[];
  from: number;
  to: number;
  loops: ReadonlyMap<string, CrashLoop>;
}) {
  const controller = useController();
  const zoom = useTimeline((state) => state.zoom);
  const span = Math.max(1, to - from);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === '+' || event.key === '=') controller.setZoom(zoom - 1);
    else if (event.key === '-') controller.setZoom(zoom + 1);
    else return;
    event.preventDefault();
  };
  return (
    <div
      className="timeline-strip"
      role="img"
      tabIndex={0}
      aria-label={`${events.length} events from ${formatLineTime(from)} to ${formatLineTime(to)}; press + or - to zoom`}
      onKeyDown={onKeyDown}
    >
      {events.slice(0, 2000).map((event) => {
        const slot = containerSlot(event);
        const looping = slot !== undefined && loops.has(slot);
        return (
          <span
            key={event.seq}
            className={`timeline-mark tone-${toneOf(event)}${looping ? ' looping' : ''}`}
            style={{ left: `${(((event.time - from) / span) * 100).toFixed(3)}%` }}
          />
        );
      })}
      <span className="timeline-axis start">{formatLineTime(from).slice(11, 19)}</span>
      <span className="timeline-axis end">{formatLineTime(to).slice(11, 19)}</span>
    </div>
  );
}

function CrashLoops({ loops }: { loops: readonly CrashLoop[] }) {
  const controller = useController();
  if (loops.length === 0) return null;
  return (
    <section className="timeline-loops" aria-label="Crash loops">
      <h2>
        <Badge tone="danger">crash loop</Badge>{' '}
        {loops.length === 1
          ? 'A container keeps failing'
          : `${loops.length} containers keep failing`}
      </h2>
      <ul>
        {loops.map((loop) => (
          <li key={loop.slot}>
            <span className="mono">{loop.containerName}</span> in {loop.namespace}/{loop.podName}:{' '}
            {loop.exits} failed exits within {crashLoop.withinMs / 60_000} min, attempt{' '}
            {loop.lastAttempt} last ({describeEvent(loop.lastExit)}){' '}
            <Button
              small
              variant="ghost"
              onClick={() =>
                controller.setFilter({
                  ...emptyFilter,
                  nodeId: loop.nodeId,
                  pod: `${loop.namespace}/${loop.podName}`,
                  container: loop.containerName,
                })
              }
            >
              Show its events
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Rows({
  events,
  loops,
}: {
  events: readonly TimelineEvent[];
  loops: ReadonlyMap<string, CrashLoop>;
}) {
  const controller = useController();
  const nodes = useNodes((state) => state.nodes);
  const nodeName = useMemo(() => {
    const names = new Map(nodes.map((node) => [node.nodeId, node.name]));
    return (nodeId: string) => names.get(nodeId) ?? nodeId;
  }, [nodes]);
  const drawn = events.slice(0, maxRows);
  return (
    <>
      <table className="detail-table timeline-table" aria-label="Timeline events, newest first">
        <thead>
          <tr>
            <th>Time</th>
            <th>Node</th>
            <th>Pod</th>
            <th>Container</th>
            <th>Event</th>
            <th className="end">Attempt</th>
            <th>Seen by</th>
            <th>Logs</th>
          </tr>
        </thead>
        <tbody>
          {drawn.map((event) => {
            const slot = containerSlot(event);
            const looping = slot !== undefined && loops.has(slot);
            const name = event.containerName ?? '';
            return (
              <tr key={event.seq} data-kind={event.kind}>
                <td className="mono">{formatLineTime(event.time)}</td>
                <td>{nodeName(event.nodeId)}</td>
                <td>
                  {event.podName !== ''
                    ? `${event.namespace}/${event.podName}`
                    : event.podId.slice(0, 12)}
                </td>
                <td className="mono">
                  {name}
                  {looping && (
                    <>
                      {' '}
                      <Badge tone="danger">crash loop</Badge>
                    </>
                  )}
                </td>
                <td>
                  <Badge tone={toneOf(event)}>{describeEvent(event)}</Badge>
                  {event.message !== undefined && (
                    <span className="muted timeline-message"> {event.message}</span>
                  )}
                </td>
                <td className="end">{event.attempt ?? ''}</td>
                <td className="muted">
                  {event.source === 'events' ? 'runtime event' : 'list diff'}
                </td>
                <td>
                  {event.containerId !== undefined && (
                    <Button
                      small
                      variant="ghost"
                      icon="logs"
                      aria-label={`Logs of ${name} at ${formatLineTime(event.time)} (${describeEvent(event)})`}
                      onClick={() => controller.openLogs(event)}
                    >
                      Logs
                    </Button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {events.length > drawn.length && (
        <p className="muted">
          {events.length - drawn.length} older events: narrow the filters or zoom in to see them.
        </p>
      )}
    </>
  );
}

export function TimelineView() {
  const controller = useController();
  const events = useTimeline((state) => state.events);
  const filter = useTimeline((state) => state.filter);
  const zoom = useTimeline((state) => state.zoom);
  const loaded = useTimeline((state) => state.loaded);
  const error = useTimeline((state) => state.error);
  const now = Math.max(useNow(), events.at(-1)?.seenAt ?? 0);
  const shown = useMemo(
    () => visibleEvents(events, filter, zoomLevels[zoom]?.ms, now),
    [events, filter, zoom, now],
  );
  const loops = useMemo(() => crashLoops(events), [events]);
  const windowMs = zoomLevels[zoom]?.ms;
  const from =
    windowMs === undefined ? Math.min(now - 60_000, events[0]?.time ?? now) : now - windowMs;
  return (
    <div className="view timeline-view">
      <Filters shown={shown.length} total={events.length} />
      <Zoom />
      {error !== undefined && (
        <ErrorBanner
          error={error}
          title="The timeline stopped"
          actions={
            <Button small onClick={() => controller.follow()}>
              Follow again
            </Button>
          }
        />
      )}
      <CrashLoops loops={[...loops.values()]} />
      <Strip events={shown} from={from} to={now} loops={loops} />
      {!loaded ? (
        <p className="muted">Loading the timeline…</p>
      ) : events.length === 0 ? (
        <EmptyState icon="record" title="Nothing recorded yet">
          Porthole records every container and pod sandbox event of the connected nodes here —
          created, started, exited with its reason, removed — and keeps them across restarts.
        </EmptyState>
      ) : shown.length === 0 ? (
        <p className="muted">No event in this window matches the filters.</p>
      ) : (
        <Rows events={shown} loops={loops} />
      )}
    </div>
  );
}
