/**
 * Learning a runtime's optional capabilities from the cheapest call that proves each.
 */
import type { Disposable } from '../../../../shared/lifecycle';
import type { Capabilities } from '../../../../shared/model';
import { logger } from '../log';
import type { CriCalls } from './calls';
import type { CapabilityTracker } from './capabilities';
import type { CallOptions, StreamObserver } from './channel';
import type { ContainerEvent } from './events';
import type { StatsFilter } from './requests';

const criLog = logger('cri');

/** An event stream still open this long is a runtime that serves events. */
const eventsProofMs = 1000;
/** A label no pod or container carries: stats lists filtered by it are empty. */
const probeLabel = 'porthole.io/capability-probe';

/**
 * What the probe asks of a client, declared here rather than picked from CriClient:
 * client.ts calls the probe, so the probe naming CriClient was an import cycle. Only
 * that each call is answered matters, never what it returns.
 */
export interface ProbedClient {
  readonly capabilities: CapabilityTracker;
  podStatsHazard(options?: CallOptions): Promise<string | undefined>;
  runtimeConfig(options?: CallOptions): Promise<unknown>;
  listPodStats(filter: Omit<StatsFilter, 'podSandboxId'>, options?: CallOptions): Promise<unknown>;
  listContainerStats(filter: StatsFilter, options?: CallOptions): Promise<unknown>;
  imageFsInfo(options?: CallOptions): Promise<unknown>;
  watchContainerEvents(observer: StreamObserver<ContainerEvent>): Disposable;
}

/**
 * The stats lists are asked for rows with a label nothing carries (the answer is empty,
 * however busy the node), so no node's whole stats are read just to learn that stats
 * exist. Resolves once those calls are answered; calls that fail for other reasons (a
 * timeout) leave their capability `unknown`. The event stream is learnt in the background:
 * a runtime without it (or with it switched off) says so at once, one that has it keeps
 * the stream open, which is proof after `eventsProofMs` (capabilities.onDidChange).
 */
export async function probeCapabilities(
  client: ProbedClient,
  calls: Pick<CriCalls, 'runtime'>,
  options: CallOptions = {},
): Promise<Capabilities> {
  // The capability tracker has recorded each outcome (unimplemented is what a probe is
  // for); the log keeps the failures that left a capability unknown.
  const probe = (call: string, promise: Promise<unknown>): Promise<unknown> =>
    promise.catch(criLog.failure(`Capability probe ${call} failed`));
  const probeOptions = { ...options, timeoutMs: options.timeoutMs ?? 3000 };
  const nothing = { labels: { [probeLabel]: 'none' } };
  probeContainerEvents(client, options.signal);
  // A runtime that crashes on pod stats has them (CRI-O 1.35+): known without asking.
  const podStatsAvoided = await client.podStatsHazard(probeOptions).then(
    (hazard) => hazard !== undefined,
    () => false,
  );
  if (podStatsAvoided) client.capabilities.observe('ListPodSandboxStats', 'answered');
  await Promise.all([
    probe('RuntimeConfig', client.runtimeConfig(probeOptions)),
    ...(podStatsAvoided
      ? []
      : [probe('ListPodSandboxStats', client.listPodStats(nothing, probeOptions))]),
    probe('ListContainerStats', client.listContainerStats(nothing, probeOptions)),
    probe('ListMetricDescriptors', calls.runtime('ListMetricDescriptors', {}, probeOptions)),
    probe('ListPodSandboxMetrics', calls.runtime('ListPodSandboxMetrics', {}, probeOptions)),
    probe('ImageFsInfo', client.imageFsInfo(probeOptions)),
  ]);
  return client.capabilities.snapshot();
}

/**
 * GetContainerEvents is a stream that may stay silent for a long time, so support is
 * proven by the server accepting it: runtimes without it refuse at once with
 * UNIMPLEMENTED, those with it switched off end it at once with OK, while a supporting
 * runtime keeps the stream open. Nothing waits on it: the tracker tells.
 */
function probeContainerEvents(client: ProbedClient, signal: AbortSignal | undefined): void {
  if (client.capabilities.get('containerEvents') !== 'unknown' || signal?.aborted) return;
  const timer = setTimeout(() => {
    end();
    client.capabilities.observe('GetContainerEvents', 'answered');
  }, eventsProofMs);
  timer.unref();
  const end = (): void => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', end);
    subscription.dispose();
  };
  const subscription = client.watchContainerEvents({ next: end, error: end, complete: end });
  signal?.addEventListener('abort', end, { once: true });
}
