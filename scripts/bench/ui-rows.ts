/**
 * The renderer's row pipeline at fleet size, without a browser: 500 nodes' resources
 * (20 pods, 100 containers and 30 images each: 50,000 containers) folded into the store's
 * index, then one container's state changes at a time, as the fleet's churn does, and
 * each change goes through what a frame does: the fold (applyDeltas), then for each view
 * (its own RowCache) the rows, the sort and the filter (VisibleRows, as useVisibleRows
 * runs them): the Containers table unfiltered, the same filtered, and the pods' rows and
 * their sort (app/model.ts pre-sorts them when idle).
 *
 *   ui_rows_fold_p50_ms              applyDeltas of one container's change
 *   ui_rows_containers_p50_ms        rows, sorted by name, unfiltered
 *   ui_rows_containers_p99_ms
 *   ui_rows_filtered_p50_ms          the same, with a text and a Node column filter
 *   ui_rows_filtered_p99_ms
 *   ui_rows_pods_p50_ms              pod rows (container counts) and their sort
 *
 *   npm run bench -- --only ui-rows
 *
 * Each figure is the time on this process's main thread, the renderer's work in a frame.
 */
import { loadavg } from 'node:os';
import type { ContainerState, ResourceDelta } from '../../shared/model';
import {
  applyDeltas,
  emptyIndex,
  type ResourceIndex,
} from '../../renderer/src/features/resources/delta';
import { emptyFilter, type ResourceFilter } from '../../renderer/src/features/resources/filter';
import type { ContainerItem, ContainerRow } from '../../renderer/src/features/resources/model';
import { RowCache } from '../../renderer/src/features/resources/rows';
import { VisibleRows } from '../../renderer/src/features/resources/visible';
import { percentile, round } from './stats';

const nodes = 500;
const podsPerNode = 20;
const containersPerNode = 100;
const imagesPerNode = 30;
const changes = 100;

function reset(node: number): ResourceDelta {
  const nodeId = `node-${node}`;
  const pods = Array.from({ length: podsPerNode }, (_, pod) => ({
    nodeId,
    id: `pod-${node}-${pod}`,
    name: `web-${pod}-${node}`,
    namespace: `team-${pod % 5}`,
    uid: `uid-${node}-${pod}`,
    attempt: 0,
    state: 'ready' as const,
    createdAt: 1_700_000_000_000 + pod,
    labels: { app: `web-${pod}` },
    annotations: {},
    runtimeHandler: '',
  }));
  const containers = Array.from({ length: containersPerNode }, (_, container): ContainerItem => ({
    nodeId,
    id: `c-${node}-${container}`,
    podSandboxId: `pod-${node}-${container % podsPerNode}`,
    name: `app-${container}`,
    attempt: 0,
    image: `registry/app:${container % imagesPerNode}`,
    imageRef: `sha256:${container % imagesPerNode}`,
    state: 'running',
    createdAt: 1_700_000_000_000 + container,
    labels: { 'io.kubernetes.container.name': `app-${container}` },
    annotations: {},
  }));
  const images = Array.from({ length: imagesPerNode }, (_, image) => ({
    nodeId,
    id: `sha256:${image}`,
    repoTags: [`registry/app:${image}`],
    repoDigests: [],
    sizeBytes: 1_000_000 + image,
    pinned: false,
  }));
  return {
    nodeId,
    reset: true,
    pods: { upserted: pods, removed: [] },
    containers: { upserted: containers, removed: [] },
    images: { upserted: images, removed: [] },
    updatedAt: 0,
  };
}

function change(index: ResourceIndex, step: number): ResourceDelta {
  const node = (step * 7919) % nodes;
  const nodeId = `node-${node}`;
  const id = `c-${node}-${(step * 31) % containersPerNode}`;
  const item = index.containers.get(`${nodeId}\u0000${id}`);
  if (item === undefined) throw new Error(`no container ${id}`);
  const state: ContainerState = item.state === 'running' ? 'exited' : 'running';
  return {
    nodeId,
    reset: false,
    pods: { upserted: [], removed: [] },
    containers: { upserted: [{ ...item, state }], removed: [] },
    images: { upserted: [], removed: [] },
    updatedAt: step,
  };
}

function timed<T>(samples: number[], run: () => T): T {
  const started = performance.now();
  const result = run();
  samples.push(performance.now() - started);
  return result;
}

export interface UiRowsBenchResults {
  readonly ui_rows_fold_p50_ms: number;
  readonly ui_rows_containers_p50_ms: number;
  readonly ui_rows_containers_p99_ms: number;
  readonly ui_rows_filtered_p50_ms: number;
  readonly ui_rows_filtered_p99_ms: number;
  readonly ui_rows_pods_p50_ms: number;
}

/** A frame's budget is 16 ms; the rows' share of it should be a small part. */
export const uiRowsBenchTargets: Readonly<Partial<Record<keyof UiRowsBenchResults, number>>> = {
  ui_rows_containers_p99_ms: 8,
  ui_rows_filtered_p99_ms: 8,
};

export async function runUiRowsBench(
  log: (line: string) => void = () => undefined,
): Promise<UiRowsBenchResults> {
  let index = applyDeltas(
    emptyIndex,
    Array.from({ length: nodes }, (_, node) => reset(node)),
  );
  const sort = { column: 'name', direction: 'asc' } as const;
  const filtered: ResourceFilter = { ...emptyFilter, text: 'app-1', node: 'node-1' };
  const named = new Set(
    Array.from({ length: nodes }, (_, node) => `node-${node}`).filter((id) =>
      id.startsWith('node-1'),
    ),
  );
  // One cache and one table per view, as each view's frame would see them.
  const view = (filter: ResourceFilter, names: ReadonlySet<string> | undefined) => {
    const cache = new RowCache();
    const visible = new VisibleRows<'containers'>();
    return (): readonly ContainerRow[] => {
      const all = cache.containerRows(index);
      const sorted = cache.sorted('containers', all, sort);
      return visible.compute('containers', all, sorted, filter, undefined, names, sort).rows;
    };
  };
  const plain = view(emptyFilter, undefined);
  const narrowed = view(filtered, named);
  const podCache = new RowCache();
  const podsFrame = () => podCache.sorted('pods', podCache.podRows(index), sort);
  // The first snapshots, and warm-up: what the steady state starts from.
  plain();
  narrowed();
  podsFrame();
  const fold: number[] = [];
  const containers: number[] = [];
  const withFilter: number[] = [];
  const pods: number[] = [];
  for (let step = 0; step < changes; step += 1) {
    const delta = change(index, step);
    index = timed(fold, () => applyDeltas(index, [delta]));
    timed(containers, plain);
    timed(withFilter, narrowed);
    timed(pods, podsFrame);
  }
  const [one, five, fifteen] = loadavg();
  log(
    `ui-rows: ${nodes} nodes, ${index.containers.size} containers; load ${[one, five, fifteen]
      .map((value) => value?.toFixed(2))
      .join(' ')}`,
  );
  await Promise.resolve();
  return {
    ui_rows_fold_p50_ms: round(percentile(fold, 50)),
    ui_rows_containers_p50_ms: round(percentile(containers, 50)),
    ui_rows_containers_p99_ms: round(percentile(containers, 99)),
    ui_rows_filtered_p50_ms: round(percentile(withFilter, 50)),
    ui_rows_filtered_p99_ms: round(percentile(withFilter, 99)),
    ui_rows_pods_p50_ms: round(percentile(pods, 50)),
  };
}
