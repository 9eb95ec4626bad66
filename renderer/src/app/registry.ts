import type { ComponentType } from 'react';
import type { ContainerRow, PodRow } from '../features/resources/model';
import type { IconName } from '../ui/icons';
import type { AppModel } from './model';

/**
 * A screen in the sidebar. Features plug in by exporting one of these and adding it to
 * `features.ts`; the shell knows nothing else about them.
 */
export interface ViewDefinition {
  readonly id: string;
  readonly title: string;
  /** Sidebar group, e.g. "Node" or "Workloads"; groups appear in first-use order. */
  readonly section: string;
  readonly icon: IconName;
  readonly component: ComponentType;
  /** A count beside the title (rows in the current scope), when the view has one. */
  readonly useCount?: () => number | undefined;
}

/** One entry in the command palette. */
export interface Command {
  readonly id: string;
  readonly title: string;
  /** What kind of command, shown in a column: "Go to", "Node", "Container"… */
  readonly group: string;
  /** A shortcut to show, e.g. "Ctrl+K". */
  readonly shortcut?: string;
  run(): void;
}

/** Features contribute commands from the current state (selection, nodes…). */
export type CommandProvider = (model: AppModel) => readonly Command[];

/**
 * An action a feature offers on a pod or a container (open a terminal, show its logs,
 * forward a port…), shown with the resource's own actions in its detail pane. Features
 * list theirs in `features.ts`; the resources feature knows nothing else about them.
 */
export interface ResourceAction<Row> {
  readonly id: string;
  readonly title: string;
  readonly icon?: IconName;
  /** Why it can't run for this row (shown as the button's tooltip); undefined = it can. */
  readonly unavailable?: (row: Row) => string | undefined;
  run(model: AppModel, row: Row): void;
}

export interface ResourceActions {
  readonly pods: readonly ResourceAction<PodRow>[];
  readonly containers: readonly ResourceAction<ContainerRow>[];
}
