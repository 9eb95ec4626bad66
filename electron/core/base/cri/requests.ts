/**
 * Porthole's filters and specs → CRI requests: the other direction of mappers.ts.
 */
import type {
  ContainerConfig,
  ContainerFilter as CriContainerFilter,
  ContainerStatsFilter as CriContainerStatsFilter,
  PodSandboxFilter as CriPodSandboxFilter,
  PodSandboxStatsFilter as CriPodSandboxStatsFilter,
} from '../../../../proto/gen';
import type { ContainerFilter, PodFilter } from '../../../../shared/model';
import { containerStateFilter, podStateFilter } from './mappers';

/** Which stats to list: a pod's, or those carrying every label. */
export interface StatsFilter {
  readonly podSandboxId?: string;
  readonly labels?: Record<string, string>;
}

export function podSandboxFilter(filter: PodFilter): CriPodSandboxFilter {
  return {
    id: filter.id ?? '',
    labelSelector: { ...filter.labels },
    ...(filter.state !== undefined && { state: { state: podStateFilter[filter.state] } }),
  };
}

export function containerFilter(filter: ContainerFilter): CriContainerFilter {
  return {
    id: filter.id ?? '',
    podSandboxId: filter.podSandboxId ?? '',
    labelSelector: { ...filter.labels },
    ...(filter.state !== undefined && {
      state: { state: containerStateFilter[filter.state] },
    }),
  };
}

export function containerStatsFilter(filter: StatsFilter): CriContainerStatsFilter {
  return {
    id: '',
    podSandboxId: filter.podSandboxId ?? '',
    labelSelector: { ...filter.labels },
  };
}

export function podStatsFilter(
  filter: Omit<StatsFilter, 'podSandboxId'>,
): CriPodSandboxStatsFilter {
  return { id: '', labelSelector: { ...filter.labels } };
}

/**
 * The image the config names is also sent as the one the user asked for
 * (`image.user_specified_image`), as the kubelet and crictl do, unless the config says
 * otherwise: a CRI-O with a signature policy refuses to create a container without it
 * ("User specified image not specified, cannot verify image signature").
 */
export function withUserSpecifiedImage(config: ContainerConfig): ContainerConfig {
  const image = config.image;
  if (image?.image === undefined || image.image === '' || image.userSpecifiedImage) return config;
  return { ...config, image: { ...image, userSpecifiedImage: image.image } };
}
