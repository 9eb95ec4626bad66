import { useId, useState } from 'react';
import { isMac, modKeyLabel } from '../../app/keyboard';
import type { AppModel } from '../../app/model';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import {
  fontSizeLimits,
  normalizeSettings,
  scrollbackChoices,
  type RendererPreference,
} from './settings';
import { shortcutLabel } from './shortcuts';
import { terminalsOf } from './store';
import { webglSupport } from './webgl';

function rendererHelp(): string {
  const support = webglSupport();
  if (!support.available) return 'WebGL is not available here: terminals draw with the DOM.';
  const gpu = support.renderer === '' ? 'the GPU' : support.renderer;
  return support.software
    ? `WebGL runs on a software rasteriser here (${gpu}), slower than the DOM: Automatic uses the DOM.`
    : `Automatic uses WebGL on ${gpu}.`;
}

function SettingsDialog({ model, onClose }: { model: AppModel; onClose: () => void }) {
  const feature = terminalsOf(model);
  const [draft, setDraft] = useState(() => feature.state.settings);
  const [fontText, setFontText] = useState(String(draft.fontSize));
  const ids = { scrollback: useId(), font: useId(), renderer: useId() };
  const font = Number(fontText);
  const browser = model.client.mode === 'browser';
  const tabFocusKeys = shortcutLabel({ action: 'tab-focus' }, isMac(), browser);
  const accessibleViewKeys = shortcutLabel({ action: 'accessible-view' }, isMac(), browser);
  const fontError =
    !Number.isInteger(font) || font < fontSizeLimits.min || font > fontSizeLimits.max
      ? `A whole number from ${fontSizeLimits.min} to ${fontSizeLimits.max}.`
      : undefined;

  const save = (): void => {
    if (fontError !== undefined) return;
    feature.updateSettings(normalizeSettings({ ...draft, fontSize: font }));
    onClose();
  };

  return (
    <Dialog
      title="Terminal settings"
      onClose={onClose}
      onSubmit={save}
      footer={
        <FormActions submitLabel="Save" onCancel={onClose} disabled={fontError !== undefined} />
      }
    >
      <div className="form-grid">
        <Field
          id={ids.scrollback}
          label="Scrollback"
          help="Lines each terminal keeps above the screen. More lines cost memory in every open terminal."
        >
          <select
            id={ids.scrollback}
            className="select"
            data-autofocus
            value={draft.scrollback}
            onChange={(event) => setDraft({ ...draft, scrollback: Number(event.target.value) })}
          >
            {scrollbackChoices.map((lines) => (
              <option key={lines} value={lines}>
                {lines.toLocaleString()} lines
              </option>
            ))}
          </select>
        </Field>
        <Field
          id={ids.font}
          label="Font size"
          help="Also Ctrl + and Ctrl − in a terminal; Ctrl 0 resets."
          error={fontError}
        >
          <input
            id={ids.font}
            className="input"
            inputMode="numeric"
            value={fontText}
            aria-invalid={fontError !== undefined}
            onChange={(event) => setFontText(event.target.value)}
          />
        </Field>
        <Field id={ids.renderer} label="Drawing" help={rendererHelp()}>
          <select
            id={ids.renderer}
            className="select"
            value={draft.renderer}
            onChange={(event) =>
              setDraft({ ...draft, renderer: event.target.value as RendererPreference })
            }
          >
            <option value="auto">Automatic</option>
            <option value="webgl">WebGL (GPU)</option>
            <option value="dom">DOM</option>
          </select>
        </Field>
        <fieldset className="field fieldset">
          <legend className="field-label">Keyboard and screen readers</legend>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={draft.screenReaderMode}
              onChange={(event) => setDraft({ ...draft, screenReaderMode: event.target.checked })}
            />
            Screen-reader mode: output is read out, the screen is read line by line
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={draft.tabMovesFocus}
              onChange={(event) => setDraft({ ...draft, tabMovesFocus: event.target.checked })}
            />
            Tab moves focus out of a terminal (also {tabFocusKeys} in a terminal)
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={draft.ctrlKToProgram}
              onChange={(event) => setDraft({ ...draft, ctrlKToProgram: event.target.checked })}
            />
            {modKeyLabel('K')} goes to the program (the shell&apos;s kill-line), not the command
            palette
          </label>
          <div className="field-help">
            F6 always leaves a terminal (Shift+F6 to the sidebar); {accessibleViewKeys} shows its
            text as a document.
          </div>
        </fieldset>
      </div>
    </Dialog>
  );
}

export function openSettingsDialog(model: AppModel): void {
  model.ui.getState().openDialog({
    key: 'terminal-settings',
    render: (close) => <SettingsDialog model={model} onClose={close} />,
  });
}
