/**
 * The features the shell shows, in sidebar order. A new feature (terminals, port
 * forwards, sessions, logs…) adds its ViewDefinition here and, if it has any, its
 * CommandProvider; nothing else in the shell changes.
 */
import { nodeCommands, nodesView } from '../features/nodes';
import { containersView, imagesView, podsView, resourceCommands } from '../features/resources';
import { appCommands } from './app-commands';
import type { CommandProvider, ResourceActions, ViewDefinition } from './registry';

export const views: readonly ViewDefinition[] = [nodesView, podsView, containersView, imagesView];

export const commandProviders: readonly CommandProvider[] = [
  resourceCommands,
  nodeCommands,
  appCommands(views),
];

/** What features offer on a pod or container row, beside the resource's own actions. */
export const resourceActions: ResourceActions = {
  pods: [],
  containers: [],
};
