// @vitest-environment happy-dom
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { terminalFlow } from '../../../../shared/model';
import { parseCast } from './asciicast';
import { TerminalPane } from './pane';
import { defaultSettings } from './settings';
import { fakeTerminalCore, installInertCanvas, toBytes, type FakeTerminalCore } from './testing';
import type { TerminalColors } from './theme';
import { loadXterm } from './xterm-modules';

const colors: TerminalColors = {
  theme: { background: '#ffffff', foreground: '#000000' },
  match: '#ffff00',
  activeMatch: '#ff8800',
  fontFamily: 'monospace',
};

let restoreCanvas: (() => void) | undefined;
beforeAll(() => {
  restoreCanvas = installInertCanvas();
});
afterAll(() => restoreCanvas?.());

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const run of cleanup.reverse()) run();
  cleanup = [];
});

async function openPane(core: FakeTerminalCore, onShortcut = vi.fn(), live = true) {
  const modules = await loadXterm();
  const pane = new TerminalPane(
    'pane-1',
    { nodeId: 'n1', containerId: 'c1', containerName: 'web', kind: 'exec' },
    {
      client: core.client,
      modules,
      settings: () => defaultSettings,
      colors: () => colors,
      mac: false,
      browser: false,
      onShortcut,
    },
  );
  const host = document.createElement('div');
  document.body.append(host);
  pane.attach(host);
  cleanup.push(() => {
    pane.dispose();
    host.remove();
    core.client.dispose();
  });
  if (live) await vi.waitFor(() => core.sink());
  return { pane, host };
}

function press(pane: TerminalPane, init: KeyboardEventInit & { keyCode?: number }): void {
  pane.term.textarea?.dispatchEvent(
    new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init }),
  );
}

function typed(core: FakeTerminalCore): string {
  return core.writes.map(([, data]) => data).join('');
}

function screenLine(pane: TerminalPane, row: number): string {
  return pane.term.buffer.active.getLine(row)?.translateToString(true) ?? '';
}

describe('TerminalPane with xterm.js', () => {
  it('opens at the size xterm has, with the shell the core found', async () => {
    const core = fakeTerminalCore();
    const { pane } = await openPane(core);
    expect(core.opened[0]).toMatchObject({ cols: pane.term.cols, rows: pane.term.rows });
    expect(core.opened[0]).not.toHaveProperty('command');
    expect(core.probes).toBe(0);
    expect(pane.title).toBe('web › /bin/ash');
  });

  it('sends what keys mean to the process: Ctrl-C, arrows, text, paste', async () => {
    const core = fakeTerminalCore();
    const { pane } = await openPane(core);
    press(pane, { key: 'c', code: 'KeyC', ctrlKey: true, keyCode: 67 });
    await vi.waitFor(() => expect(typed(core)).toBe('\x03'));
    press(pane, { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 });
    press(pane, { key: 'a', code: 'KeyA', keyCode: 65 });
    pane.term.paste('echo "pasted"');
    await vi.waitFor(() => expect(typed(core)).toBe('\x03\x1b[Aaecho "pasted"'));
  });

  it('keeps its own shortcuts from the process and lets the app have Ctrl+digits', async () => {
    const core = fakeTerminalCore();
    const onShortcut = vi.fn();
    const { pane } = await openPane(core, onShortcut);
    press(pane, { key: 'E', code: 'KeyE', ctrlKey: true, shiftKey: true, keyCode: 69 });
    press(pane, { key: 'C', code: 'KeyC', ctrlKey: true, shiftKey: true, keyCode: 67 });
    const appKey = new KeyboardEvent('keydown', {
      key: '2',
      code: 'Digit2',
      ctrlKey: true,
      bubbles: true,
      cancelable: true,
    });
    const seenByApp = vi.fn();
    window.addEventListener('keydown', seenByApp);
    pane.term.textarea?.dispatchEvent(appKey);
    window.removeEventListener('keydown', seenByApp);
    expect(onShortcut.mock.calls.map(([, shortcut]) => shortcut as unknown)).toEqual([
      { action: 'split', direction: 'right' },
      { action: 'copy' },
    ]);
    expect(seenByApp).toHaveBeenCalledOnce();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(core.writes).toEqual([]);
  });

  it('keeps what is typed while it opens and sends it, in order, once live', async () => {
    let release = (): void => undefined;
    const core = fakeTerminalCore({ openGate: new Promise((done) => (release = done)) });
    const { pane } = await openPane(core, vi.fn(), false);
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('opening'));
    // Typed at full speed into the new pane: keys, a paste, a mouse report.
    press(pane, { key: 'l', code: 'KeyL', keyCode: 76 });
    press(pane, { key: 's', code: 'KeyS', keyCode: 83 });
    pane.term.paste(' -l');
    press(pane, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(core.writes).toEqual([]);
    release();
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('live'));
    press(pane, { key: 'x', code: 'KeyX', keyCode: 88 });
    await vi.waitFor(() => expect(typed(core)).toBe('ls -l\rx'));
    expect(core.writes.every(([id]) => id === 't1')).toBe(true);
  });

  it('edits typed-ahead input locally too when the container has no tty', async () => {
    let release = (): void => undefined;
    const core = fakeTerminalCore({
      tty: false,
      openGate: new Promise((done) => (release = done)),
    });
    const { pane } = await openPane(core, vi.fn(), false);
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('opening'));
    for (const key of ['h', 'i', 'x']) {
      const upper = key.toUpperCase();
      press(pane, { key, code: `Key${upper}`, keyCode: upper.charCodeAt(0) });
    }
    press(pane, { key: 'Backspace', code: 'Backspace', keyCode: 8 });
    press(pane, { key: 'Enter', code: 'Enter', keyCode: 13 });
    release();
    await vi.waitFor(() => expect(typed(core)).toBe('hi\n'));
    // The local echo, Backspace included ("\b \b" leaves a written blank).
    await vi.waitFor(() => expect(screenLine(pane, 0).trimEnd()).toBe('hi'));
  });

  it('forgets typed-ahead input when the pane fails to open', async () => {
    let release = (): void => undefined;
    const core = fakeTerminalCore({
      failOpen: new AppError({ code: 'unavailable', message: 'The node went away.' }),
      openGate: new Promise((done) => (release = done)),
    });
    const { pane } = await openPane(core, vi.fn(), false);
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('opening'));
    press(pane, { key: 'a', code: 'KeyA', keyCode: 65 });
    release();
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('ended'));
    press(pane, { key: 'Enter', code: 'Enter', keyCode: 13 }); // reopens
    await vi.waitFor(() => expect(pane.status.getState().generation).toBe(2));
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('ended'));
    expect(core.writes).toEqual([]);
  });

  it('draws output bytes into the buffer, acknowledging whole batches only', async () => {
    const core = fakeTerminalCore();
    const { pane } = await openPane(core);
    // "grüße" with the ü split between two events: xterm decodes UTF-8 across writes.
    const bytes = new TextEncoder().encode('grüße\r\n');
    core.sink().next({ type: 'output', stream: 'stdout', data: toBytes(bytes.subarray(0, 3)) });
    core.sink().next({ type: 'output', stream: 'stdout', data: toBytes(bytes.subarray(3)) });
    await vi.waitFor(() => expect(screenLine(pane, 0)).toBe('grüße'));
    expect(pane.bytesReceived).toBe(bytes.length);
    const batch = new Uint8Array(terminalFlow.ackBatchBytes).fill(0x2e);
    core.sink().next({ type: 'output', stream: 'stdout', data: batch });
    await vi.waitFor(() => expect(core.acks).toEqual([terminalFlow.ackBatchBytes]));
  });

  it('shows how it ended, reopens on Enter, and closes the core terminal on dispose', async () => {
    const core = fakeTerminalCore();
    const { pane } = await openPane(core);
    core.sink().next({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    await vi.waitFor(() =>
      expect(pane.status.getState().phase).toMatchObject({ phase: 'ended', exitCode: 3 }),
    );
    press(pane, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await vi.waitFor(() => expect(core.opened).toHaveLength(2));
    expect(core.opened[1]?.command).toEqual(['/bin/ash']); // the shell found the first time
    await vi.waitFor(() => expect(pane.status.getState().phase.phase).toBe('live'));
    expect(pane.status.getState().generation).toBe(2);
    pane.dispose();
    await vi.waitFor(() => expect(core.closed).toEqual(['t2']));
  });

  it('records what it draws as asciicast, with resizes', async () => {
    const core = fakeTerminalCore();
    const { pane } = await openPane(core);
    pane.startRecording();
    core.sink().next({ type: 'output', stream: 'stdout', data: toBytes('$ ls\r\n') });
    await vi.waitFor(() => expect(screenLine(pane, 0)).toBe('$ ls'));
    pane.term.resize(60, 20);
    const saved = pane.stopRecording();
    const cast = parseCast(saved?.text ?? '');
    expect(cast.header).toMatchObject({ width: 80, height: 24, title: 'web › /bin/ash' });
    expect(cast.events.map((event) => [event.type, event.data])).toEqual([
      ['o', '$ ls\r\n'],
      ['r', '60x20'],
    ]);
    expect(saved?.fileName).toMatch(/^web-bin-ash-\d{4}-\d{2}-\d{2}-\d{6}\.cast$/);
    expect(pane.status.getState().lastCast).toBe(saved);
  });

  it('exports the transcript as text and moves its element between hosts', async () => {
    const core = fakeTerminalCore();
    const { pane, host } = await openPane(core);
    core.sink().next({
      type: 'output',
      stream: 'stdout',
      data: toBytes('\x1b[1mbold\x1b[0m line\r\nnext\r\n'),
    });
    await vi.waitFor(() => expect(pane.transcript()).toBe('bold line\nnext\n'));
    const html = pane.transcriptHtml();
    expect(html).toContain('bold');
    expect(html).toContain('font-weight: bold');
    const other = document.createElement('div');
    document.body.append(other);
    pane.detach(host);
    expect(host.childElementCount).toBe(0);
    pane.attach(other);
    expect(other.firstElementChild).toBe(pane.element);
    expect(pane.transcript()).toBe('bold line\nnext\n');
    expect(core.opened).toHaveLength(1); // moving it opened nothing new
    other.remove();
  });
});
