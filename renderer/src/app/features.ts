/**
 * The features the shell shows, in sidebar order. A new feature (terminals, port
 * forwards, sessions, logs…) adds its ViewDefinition here and, if it has any, its
 * CommandProvider; nothing else in the shell changes.
 */
import { nodeCommands, nodesView } from '../features/nodes';
import { containersView, imagesView, podsView, resourceCommands } from '../features/resources';
import { containerTerminalActions, terminalCommands, terminalsView } from '../features/terminal';
import { containerStatsAction, podStatsAction, statsView } from '../features/stats';
import { forwardCommands, podForwardActions, portForwardsView } from '../features/port-forwards';
import { sessionCommands, sessionsView } from '../features/sessions';
import { containerLogsAction, logsCommands, logsView, podLogsAction } from '../features/logs';
import { diagnosticsCommands, diagnosticsView } from '../features/diagnostics';
import { containerDebugAction, debugView } from '../features/debug';
import { containerFanoutAction, fanoutView } from '../features/fanout';
import { containerFilesAction, filesView } from '../features/files';
import { containerTimelineAction, timelineView } from '../features/timeline';
import { appCommands } from './app-commands';
import type { CommandProvider, ResourceActions, ViewDefinition } from './registry';

export const views: readonly ViewDefinition[] = [
  nodesView,
  podsView,
  containersView,
  imagesView,
  terminalsView,
  fanoutView,
  portForwardsView,
  sessionsView,
  debugView,
  filesView,
  logsView,
  timelineView,
  statsView,
  diagnosticsView,
];

export const commandProviders: readonly CommandProvider[] = [
  resourceCommands,
  terminalCommands,
  forwardCommands,
  sessionCommands,
  logsCommands,
  nodeCommands,
  diagnosticsCommands,
  appCommands(views),
];

/** What features offer on a pod or container row, beside the resource's own actions. */
export const resourceActions: ResourceActions = {
  pods: [...podForwardActions, podLogsAction, podStatsAction],
  containers: [
    ...containerTerminalActions,
    containerDebugAction,
    containerFilesAction,
    containerLogsAction,
    containerStatsAction,
    containerFanoutAction,
    containerTimelineAction,
  ],
};
