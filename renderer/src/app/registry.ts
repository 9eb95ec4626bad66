import type { ComponentType } from 'react';
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
