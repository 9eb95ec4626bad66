import {
  capabilityNames,
  type Capabilities,
  type CapabilityName,
  type CapabilityState,
} from '../../../../shared/model';

/** The CRI methods whose support is optional, and the capability each one proves. */
export const capabilityByMethod: Readonly<Record<string, CapabilityName>> = {
  GetContainerEvents: 'containerEvents',
  RuntimeConfig: 'runtimeConfig',
  PodSandboxStats: 'podSandboxStats',
  ListPodSandboxStats: 'podSandboxStats',
  ContainerStats: 'containerStats',
  ListContainerStats: 'containerStats',
  ListMetricDescriptors: 'metricDescriptors',
  ListPodSandboxMetrics: 'podSandboxMetrics',
  ImageFsInfo: 'imageFsInfo',
  CheckpointContainer: 'checkpointContainer',
};

/**
 * What one runtime is known to support. A method that answers UNIMPLEMENTED turns its
 * capability off; any answer at all turns it on; one that answers but does nothing (events
 * switched off in the runtime's config) marks it disabled. The last call decides: a
 * runtime doesn't grow features while it runs, but one that restarted may be another
 * version, and probing it again (CriClient.probeCapabilities) overwrites what the old one
 * proved. Listeners hear each change once.
 */
export class CapabilityTracker {
  private readonly states = new Map<CapabilityName, CapabilityState>(
    capabilityNames.map((name) => [name, 'unknown']),
  );
  private readonly listeners = new Set<(capabilities: Capabilities) => void>();

  get(name: CapabilityName): CapabilityState {
    return this.states.get(name) ?? 'unknown';
  }

  snapshot(): Capabilities {
    return Object.fromEntries(this.states) as Record<CapabilityName, CapabilityState>;
  }

  set(name: CapabilityName, state: Exclude<CapabilityState, 'unknown'>): void {
    if (this.states.get(name) === state) return;
    this.states.set(name, state);
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }

  /** Records what a finished call of `method` proves, if anything. */
  observe(method: string, outcome: 'answered' | 'unimplemented' | 'disabled'): void {
    const capability = capabilityByMethod[method];
    if (capability === undefined) return;
    this.set(
      capability,
      outcome === 'answered' ? 'supported' : outcome === 'disabled' ? 'disabled' : 'unsupported',
    );
  }

  onDidChange(listener: (capabilities: Capabilities) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}
