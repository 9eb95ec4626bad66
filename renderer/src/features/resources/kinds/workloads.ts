import type { ContainerRow, PodRow, ResourceKind } from '../model';
import { RunPodButton } from './create';
import type { ResourceKindView } from './kind';

/**
 * What pods and containers have alike: namespaces and labels to filter on, a name, an
 * age, and "Run pod…" to make one.
 */
export function workloadTraits<Row extends PodRow | ContainerRow>(
  plural: string,
): Pick<ResourceKindView<ResourceKind>, 'namespaced' | 'Create' | 'noneText'> & {
  titleOf: (row: Row) => string;
  createdAt: (row: Row) => number;
} {
  return {
    namespaced: true,
    titleOf: (row) => row.name,
    createdAt: (row) => row.createdAt,
    Create: RunPodButton,
    noneText: `The runtime runs no ${plural} right now. Run a pod from a spec to try things out.`,
  };
}
