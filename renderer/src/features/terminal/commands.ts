/** The palette's terminal commands: open terminals on containers, act on the active pane. */
import type { Command, CommandProvider } from '../../app/registry';
import type { AppModel } from '../../app/model';
import { deriveRows } from '../resources/use-rows';
import type { ContainerRow } from '../resources/model';
import { attachTo, openShell } from './actions';
import {
  downloadRecording,
  exportTranscript,
  replayFromFile,
  replayRecording,
} from './pane-actions';
import { openRunCommandDialog } from './RunCommandDialog';
import { openSettingsDialog } from './SettingsDialog';
import { contentOf, terminalsOf, terminalsViewId, type TerminalsFeature } from './store';
import { paneIds } from './layout';
import { canReopen } from './phase';

/** Enough to find any container by name; the table is there for the rest. */
const maxContainerCommands = 200;

function runningContainers(model: AppModel): ContainerRow[] {
  return deriveRows(model.rows, 'containers', model.resources.getState().index)
    .filter((row) => row.state === 'running')
    .slice(0, maxContainerCommands);
}

function selectedContainer(model: AppModel): ContainerRow | undefined {
  if (model.ui.getState().view !== 'containers') return undefined;
  const key = model.resourceViews.getState().byKind.containers.selectedKey;
  if (key === undefined) return undefined;
  return deriveRows(model.rows, 'containers', model.resources.getState().index).find(
    (row) => row.key === key && row.state === 'running',
  );
}

function containerCommands(model: AppModel): Command[] {
  const commands: Command[] = [];
  const selected = selectedContainer(model);
  if (selected !== undefined) {
    commands.push(
      {
        id: 'terminal.selected.shell',
        title: `Open a shell in ${selected.name}`,
        group: 'Terminal',
        run: () => openShell(model, selected),
      },
      {
        id: 'terminal.selected.attach',
        title: `Attach to ${selected.name}`,
        group: 'Terminal',
        run: () => attachTo(model, selected),
      },
      {
        id: 'terminal.selected.run',
        title: `Run a command in ${selected.name}…`,
        group: 'Terminal',
        run: () => openRunCommandDialog(model, selected),
      },
    );
  }
  for (const row of runningContainers(model)) {
    if (row.key === selected?.key) continue;
    const where = row.podName === '' ? '' : ` (${row.podName})`;
    commands.push({
      id: `terminal.shell.${row.key}`,
      title: `Shell in ${row.name}${where}`,
      group: 'Terminal',
      run: () => openShell(model, row),
    });
  }
  return commands;
}

function activePaneCommands(model: AppModel, feature: TerminalsFeature): Command[] {
  const active = feature.activePane();
  if (active?.content.kind !== 'terminal') return [];
  const pane = active.content.pane;
  const { recording, lastCast, phase } = pane.status.getState();
  const commands: Command[] = [
    {
      id: 'terminal.split.right',
      title: 'Split the terminal right',
      group: 'Terminal',
      run: () => feature.split('right'),
    },
    {
      id: 'terminal.split.down',
      title: 'Split the terminal down',
      group: 'Terminal',
      run: () => feature.split('down'),
    },
    {
      id: 'terminal.duplicate',
      title: 'New terminal tab like the active one',
      group: 'Terminal',
      run: () => feature.duplicate(),
    },
    {
      id: 'terminal.find',
      title: 'Find in the terminal',
      group: 'Terminal',
      run: () => feature.setFinding(active.paneId, true),
    },
    recording === undefined
      ? {
          id: 'terminal.record',
          title: 'Start recording the terminal',
          group: 'Terminal',
          run: () => pane.startRecording(),
        }
      : {
          id: 'terminal.record.stop',
          title: 'Stop recording the terminal',
          group: 'Terminal',
          run: () => pane.stopRecording(),
        },
    {
      id: 'terminal.transcript',
      title: 'Export the terminal transcript (.txt)',
      group: 'Terminal',
      run: () => exportTranscript(pane),
    },
    {
      id: 'terminal.close',
      title: 'Close the terminal pane',
      group: 'Terminal',
      run: () => feature.closePane(active.paneId),
    },
  ];
  if (lastCast !== undefined) {
    commands.push(
      {
        id: 'terminal.cast.download',
        title: 'Download the terminal recording (.cast)',
        group: 'Terminal',
        run: () => downloadRecording(pane),
      },
      {
        id: 'terminal.cast.replay',
        title: 'Replay the terminal recording',
        group: 'Terminal',
        run: () => replayRecording(model, pane),
      },
    );
  }
  if (canReopen(phase)) {
    commands.push({
      id: 'terminal.reopen',
      title: 'Reopen the terminal',
      group: 'Terminal',
      run: () => pane.reopen(),
    });
  }
  return commands;
}

/**
 * Every open pane by name: jump to it from anywhere. Panes with the same name (a split of
 * one shell) are told apart by where they are: "tab 1, pane 2 of 2".
 */
function paneCommands(model: AppModel, feature: TerminalsFeature): Command[] {
  const places = new Map<string, string>();
  feature.state.tabs.forEach((tab, tabIndex) => {
    const ids = paneIds(tab.layout);
    ids.forEach((paneId, index) =>
      places.set(
        paneId,
        ids.length === 1
          ? `tab ${tabIndex + 1}`
          : `tab ${tabIndex + 1}, pane ${index + 1} of ${ids.length}`,
      ),
    );
  });
  const panes = feature.orderedPanes();
  const titles = panes.map(([, content]) => contentOf(content).title);
  return panes.map(([paneId, content], index) => {
    const title = titles[index] ?? contentOf(content).title;
    const twin = titles.some((other, at) => at !== index && other === title);
    const place = places.get(paneId);
    return {
      id: `terminal.go.${paneId}`,
      title: `Go to terminal ${title}${twin && place !== undefined ? ` (${place})` : ''}`,
      group: 'Terminal',
      run: () => {
        model.ui.getState().navigate(terminalsViewId);
        feature.focusPane(paneId);
      },
    };
  });
}

export const terminalCommands: CommandProvider = (model) => {
  const feature = terminalsOf(model);
  const onTerminals = model.ui.getState().view === terminalsViewId;
  return [
    ...(onTerminals ? activePaneCommands(model, feature) : []),
    ...containerCommands(model),
    ...paneCommands(model, feature),
    {
      id: 'terminal.zoom.in',
      title: 'Terminal font: bigger',
      group: 'Terminal',
      run: () => feature.zoom(1),
    },
    {
      id: 'terminal.zoom.out',
      title: 'Terminal font: smaller',
      group: 'Terminal',
      run: () => feature.zoom(-1),
    },
    {
      id: 'terminal.zoom.reset',
      title: 'Terminal font: default size',
      group: 'Terminal',
      run: () => feature.zoom(0),
    },
    {
      id: 'terminal.replay',
      title: 'Replay a terminal recording (.cast)…',
      group: 'Terminal',
      run: () => void replayFromFile(model),
    },
    {
      id: 'terminal.settings',
      title: 'Terminal settings…',
      group: 'Settings',
      run: () => openSettingsDialog(model),
    },
  ];
};
