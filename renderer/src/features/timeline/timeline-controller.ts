/**
 * The Timeline view's state, kept for the window's lifetime: the recorded events as the
 * `timeline` event sends them (bounded like the core's), the filters and the zoom.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import {
  BoundedTimeline,
  timelineJsonLines,
  timelineLimits,
  type TimelineEvent,
  type TimelineUpdate,
} from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import type { Disposable } from '../../platform';
import { logsControllerOf } from '../logs/logs-controller';
import { logsViewId } from '../logs';
import {
  emptyFilter,
  logsLinkOf,
  visibleEvents,
  zoomLevels,
  type TimelineFilter,
} from './timeline-model';
import { saveText } from '../../ui/save-file';

export interface TimelineState {
  readonly events: readonly TimelineEvent[];
  /** The first batch has arrived. */
  readonly loaded: boolean;
  readonly error?: AppErrorData;
  readonly filter: TimelineFilter;
  /** Index in zoomLevels. */
  readonly zoom: number;
}

const defaultZoom = 2;

export class TimelineController implements Disposable {
  readonly store: StoreApi<TimelineState>;
  /** The events as the core keeps them, by its rule (the store holds a copy). */
  private readonly kept = new BoundedTimeline(timelineLimits.maxEvents);
  private subscription: Disposable | undefined;

  constructor(private readonly model: AppModel) {
    this.store = createStore<TimelineState>()(() => ({
      events: [],
      loaded: false,
      filter: emptyFilter,
      zoom: defaultZoom,
    }));
    this.follow();
  }

  private get state(): TimelineState {
    return this.store.getState();
  }

  /** Subscribes (again, after the stream ended). */
  follow(): void {
    this.subscription?.dispose();
    this.store.setState({ error: undefined });
    this.subscription = this.model.client.subscribe(
      'timeline',
      undefined,
      (update) => this.onUpdate(update),
      (error) => this.store.setState({ error: toAppErrorData(error) }),
    );
  }

  setFilter(change: Partial<TimelineFilter>): void {
    this.store.setState({ filter: { ...this.state.filter, ...change } });
  }

  setZoom(zoom: number): void {
    this.store.setState({ zoom: Math.max(0, Math.min(zoomLevels.length - 1, zoom)) });
  }

  /** The events shown now: the zoom window and the filters, newest first. */
  shown(now = Date.now()): TimelineEvent[] {
    const { events, filter, zoom } = this.state;
    return visibleEvents(events, filter, zoomLevels[zoom]?.ms, now);
  }

  /** Opens the event's container log at that moment in the Logs view. */
  openLogs(event: TimelineEvent): void {
    const link = logsLinkOf(event, this.model.resources.getState().index.containers.values());
    if (link === undefined) return;
    const sinceSeconds =
      link.since === undefined
        ? undefined
        : Math.max(1, Math.ceil((Date.now() - link.since) / 1000) + 1);
    void logsControllerOf(this.model).openFor(
      {
        nodeId: event.nodeId,
        containerId: link.containerId,
        containerName: event.containerName ?? link.containerId,
        ...(event.podName !== '' && { podName: event.podName, namespace: event.namespace }),
      },
      {
        previous: link.previous,
        follow: event.kind !== 'exited',
        ...(sinceSeconds === undefined
          ? { sinceSeconds: undefined }
          : { sinceSeconds, tailLines: undefined }),
      },
    );
    this.model.ui.getState().navigate(logsViewId);
  }

  /** Saves what the view shows (filtered, in the window) as JSON lines, oldest first. */
  exportJsonLines(): void {
    const events = this.shown().reverse();
    const text = timelineJsonLines(events);
    saveText(
      `timeline-${new Date().toISOString().replaceAll(':', '-')}.jsonl`,
      text,
      'application/x-ndjson',
    );
  }

  async clear(): Promise<void> {
    try {
      await this.model.client.services.timeline.clear();
    } catch (error) {
      this.model.toasts.getState().show({
        tone: 'error',
        title: 'Could not clear the timeline',
        error: toAppErrorData(error),
      });
    }
  }

  dispose(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
  }

  private onUpdate(update: TimelineUpdate): void {
    if (update.reset) this.kept.reset(update.events);
    else this.kept.add(update.events);
    // A copy: the store's readers compare by reference.
    this.store.setState({ events: [...this.kept.events], loaded: true });
  }
}

const timelineState = new FeatureState('timeline', (model) => new TimelineController(model));

export function timelineControllerOf(model: AppModel): TimelineController {
  return model.featureState(timelineState);
}
