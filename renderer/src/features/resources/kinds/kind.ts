import type { ComponentType } from 'react';
import type { IconName } from '../../../ui/icons';
import type { Column } from '../../../ui/table/VirtualTable';
import type { DetailsByKind } from '../use-detail';
import type { ResourceKind, RowsByKind } from '../model';

/**
 * A resource kind as the app shows it, and all it takes to add one (Lens's and Podman
 * Desktop's shape): its names, its table columns and its detail parts. ResourceView and
 * ResourceDetail draw every kind from this; nothing else switches on the kind.
 */
export interface ResourceKindView<K extends ResourceKind> {
  readonly kind: K;
  /** The sidebar's and the table's title: "Pods". */
  readonly title: string;
  /** The detail pane's kind line: "Pod". */
  readonly one: string;
  /** In sentences: ["pod", "pods"]. */
  readonly nouns: readonly [singular: string, plural: string];
  readonly icon: IconName;
  /** The columns; `withNode` adds the Node column for rows from several nodes. */
  readonly columns: {
    readonly plain: readonly Column<RowsByKind[K]>[];
    readonly withNode: readonly Column<RowsByKind[K]>[];
  };
  /** Its kind has namespaces and labels: the toolbar offers those filters. */
  readonly namespaced: boolean;
  /** The name in the detail pane's header. */
  readonly titleOf: (row: RowsByKind[K]) => string;
  /** When it was created, for the pane's "3m old" (images have no such date). */
  readonly createdAt?: (row: RowsByKind[K]) => number;
  /** The pane's buttons: the kind's own actions and what other features contribute. */
  readonly Actions: ComponentType<{ readonly row: RowsByKind[K] }>;
  /** The pane's sections, from the runtime's full status of the row. */
  readonly Body: ComponentType<{ readonly row: RowsByKind[K]; readonly detail: DetailsByKind[K] }>;
  /** The toolbar's and the empty table's way to make one ("Run pod…", "Pull image…"). */
  readonly Create: ComponentType<{ readonly primary?: boolean }>;
  /** The empty table's advice when the runtime has none. */
  readonly noneText: string;
}

export type ResourceKindViews = { readonly [K in ResourceKind]: ResourceKindView<K> };
