/** What a terminal pane offers in its menus and the palette: recordings, transcripts… */
import { AppError, toAppErrorData } from '../../../../shared/errors';
import { copyWithToast } from '../../app/CopyButton';
import { isMac } from '../../app/keyboard';
import type { AppModel } from '../../app/model';
import { openAccessibleView } from './AccessibleView';
import { parseCast } from './asciicast';
import { saveText } from '../../ui/save-file';
import { fileNameFor, pickFile } from './files';
import type { MenuEntry } from './Menu';
import { openSettingsDialog } from './SettingsDialog';
import type { TerminalPane } from './pane';
import { shortcutLabel } from './shortcuts';
import { terminalsOf } from './store';
import { canReopen } from './phase';

/** A .cast larger than this is refused before it is read: a player holds it all. */
const maxCastFileBytes = 64 * 1024 * 1024;

export function downloadRecording(pane: TerminalPane): void {
  const cast = pane.status.getState().lastCast;
  if (cast !== undefined) saveText(cast.fileName, cast.text, 'application/x-asciicast');
}

export function replayRecording(model: AppModel, pane: TerminalPane): void {
  const cast = pane.status.getState().lastCast;
  if (cast === undefined) return;
  void terminalsOf(model).openPlayer(parseCast(cast.text), cast.title);
}

export function exportTranscript(pane: TerminalPane): void {
  saveText(fileNameFor(pane.title.replace('›', ''), 'txt'), pane.transcript());
}

export function exportHtml(pane: TerminalPane): void {
  saveText(fileNameFor(pane.title.replace('›', ''), 'html'), pane.transcriptHtml(), 'text/html');
}

/** "Replay a recording…": a .cast file from disk, into a player tab. */
export async function replayFromFile(model: AppModel): Promise<void> {
  const file = await pickFile('.cast,application/x-asciicast,application/json,text/plain');
  if (file === undefined) return;
  try {
    if (file.size > maxCastFileBytes) {
      throw new AppError({
        code: 'resource-exhausted',
        message: `${file.name} is ${Math.round(file.size / 1024 / 1024)} MB; the player opens recordings up to ${maxCastFileBytes / 1024 / 1024} MB.`,
        hint: 'Cut it down with asciinema (asciinema cut) or play it with asciinema itself.',
      });
    }
    const cast = parseCast(await file.text());
    await terminalsOf(model).openPlayer(cast, cast.header.title ?? file.name);
  } catch (error) {
    model.toasts.getState().show({
      tone: 'error',
      title: `Could not replay ${file.name}`,
      error: toAppErrorData(error),
    });
  }
}

function label(
  model: AppModel,
  mac: boolean,
  shortcut: Parameters<typeof shortcutLabel>[0],
): string | undefined {
  return shortcutLabel(shortcut, mac, model.client.mode === 'browser');
}

/** The right-click menu over a terminal. */
export function contextMenuEntries(model: AppModel, pane: TerminalPane, mac: boolean): MenuEntry[] {
  const feature = terminalsOf(model);
  const hasSelection = pane.term.hasSelection();
  return [
    {
      label: 'Copy',
      shortcut: label(model, mac, { action: 'copy' }),
      disabled: !hasSelection,
      onSelect: () => void copyWithToast(model, pane.term.getSelection(), 'the selection'),
    },
    {
      label: 'Paste',
      shortcut: label(model, mac, { action: 'paste' }),
      onSelect: () => void pane.pasteFromClipboard(),
    },
    { label: 'Select all', onSelect: () => pane.term.selectAll() },
    {
      label: 'Find…',
      shortcut: label(model, mac, { action: 'find' }),
      onSelect: () => feature.setFinding(pane.paneId, true),
    },
    { label: 'Clear', onSelect: () => pane.term.clear() },
    'separator',
    {
      label: 'Split right',
      shortcut: label(model, mac, { action: 'split', direction: 'right' }),
      onSelect: () => feature.split('right', pane.paneId),
    },
    {
      label: 'Split down',
      shortcut: label(model, mac, { action: 'split', direction: 'down' }),
      onSelect: () => feature.split('down', pane.paneId),
    },
    'separator',
    {
      label: 'Close pane',
      shortcut: label(model, mac, { action: 'close-pane' }),
      onSelect: () => feature.closePane(pane.paneId),
    },
  ];
}

/** The pane header's "More" menu: the terminal, recordings, transcripts, settings. */
export function moreMenuEntries(model: AppModel, pane: TerminalPane): MenuEntry[] {
  const feature = terminalsOf(model);
  const { phase, recording, lastCast } = pane.status.getState();
  return [
    recording === undefined
      ? {
          label: 'Start recording',
          disabled: phase.phase === 'ended',
          onSelect: () => pane.startRecording(),
        }
      : { label: 'Stop recording', onSelect: () => pane.stopRecording() },
    {
      label: 'Download recording (.cast)',
      disabled: lastCast === undefined,
      onSelect: () => downloadRecording(pane),
    },
    {
      label: 'Replay recording',
      disabled: lastCast === undefined,
      onSelect: () => replayRecording(model, pane),
    },
    'separator',
    { label: 'Export transcript (.txt)', onSelect: () => exportTranscript(pane) },
    { label: 'Export with colours (.html)', onSelect: () => exportHtml(pane) },
    {
      label: 'Copy all output',
      onSelect: () => void copyWithToast(model, pane.transcript(), 'the output'),
    },
    'separator',
    {
      label: 'New tab like this one',
      onSelect: () => feature.duplicate(pane.paneId),
    },
    { label: 'Reopen', disabled: !canReopen(phase), onSelect: () => pane.reopen() },
    {
      label: phase.phase === 'live' && phase.info.kind === 'attach' ? 'Detach' : 'End session',
      disabled: phase.phase !== 'live',
      onSelect: () => pane.close(),
    },
    'separator',
    {
      label: 'Show the text (accessible view)',
      shortcut: label(model, isMac(), { action: 'accessible-view' }),
      onSelect: () => openAccessibleView(model, pane),
    },
    {
      label: feature.state.settings.tabMovesFocus ? 'Tab goes to the terminal' : 'Tab moves focus',
      shortcut: label(model, isMac(), { action: 'tab-focus' }),
      onSelect: () => feature.toggleTabMovesFocus(),
    },
    { label: 'Terminal settings…', onSelect: () => openSettingsDialog(model) },
  ];
}
