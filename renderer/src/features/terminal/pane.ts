/**
 * One terminal pane's lasting half (`TerminalPaneView` is its React half): the xterm.js
 * instance, its addons (the link to the core among them, core-link.ts), its element, its
 * recording. It lives in the feature store, not in React: a view or tab switch only moves
 * `element` out of the document and back (xterm keeps its buffer, renderer and scroll
 * position), and the terminal ends only when its pane is closed.
 */
import type { FitAddon } from '@xterm/addon-fit';
import type { SearchAddon } from '@xterm/addon-search';
import type { SerializeAddon } from '@xterm/addon-serialize';
import type { WebglAddon } from '@xterm/addon-webgl';
import type { Terminal } from '@xterm/xterm';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData } from '../../../../shared/errors';
import {
  DisposableStore,
  MutableDisposable,
  toDisposable,
  type Disposable,
} from '../../../../shared/lifecycle';
import type { PortholeClient } from '../../platform';
import { copyText } from '../../ui/clipboard';
import { CastRecorder } from './asciicast';
import { formatCommandLine } from './command-line';
import { CoreLinkAddon, type ConnectionPhase, type TerminalTarget } from './core-link';
import { canReopen } from './phase';
import { fileNameFor } from './files';
import type { TerminalSettings } from './settings';
import { terminalShortcut, type TerminalShortcut } from './shortcuts';
import type { TerminalColors } from './theme';
import { bufferText } from './transcript';
import { shouldUseWebgl } from './webgl';
import type { XtermModules } from './xterm-modules';

export interface RecordingStatus {
  readonly startedAt: number;
  /** Characters of cast text so far. */
  readonly size: number;
}

/** A finished recording, kept for download and replay until the next one. */
export interface SavedCast {
  readonly text: string;
  readonly fileName: string;
  readonly title: string;
  /** The size bound cut it short. */
  readonly truncated: boolean;
}

export interface PaneStatus {
  readonly phase: ConnectionPhase;
  readonly cols: number;
  readonly rows: number;
  readonly renderer: 'webgl' | 'dom';
  /** What the process called its window (OSC 0/2), e.g. `user@host: ~`. */
  readonly processTitle: string;
  readonly recording?: RecordingStatus;
  readonly lastCast?: SavedCast;
  /** One line about something that went wrong without ending the terminal. */
  readonly notice?: string;
  /** How many times it was (re)opened. */
  readonly generation: number;
}

export interface PaneEnvironment {
  readonly client: PortholeClient;
  readonly modules: XtermModules;
  readonly settings: () => TerminalSettings;
  readonly colors: () => TerminalColors;
  readonly mac: boolean;
  /** In a browser window: some desktop shortcuts belong to the browser (see shortcuts.ts). */
  readonly browser: boolean;
  /** The feature's shortcuts (split, focus moves, zoom…), run for this pane. */
  readonly onShortcut: (pane: TerminalPane, shortcut: TerminalShortcut) => void;
}

const recordingRefreshMs = 500;

function commandLabel(target: TerminalTarget, command: readonly string[] | undefined): string {
  if (target.kind === 'attach') return 'attach';
  if (command === undefined) return 'shell';
  return formatCommandLine(command);
}

export class TerminalPane implements Disposable {
  readonly element: HTMLDivElement;
  readonly term: Terminal;
  readonly search: SearchAddon;
  readonly status: StoreApi<PaneStatus>;
  private readonly fit: FitAddon;
  private readonly serializer: SerializeAddon;
  /** Everything the pane owns but xterm itself, disposed together (newest first). */
  private readonly disposables = new DisposableStore();
  private readonly webgl = this.disposables.add(new MutableDisposable<WebglAddon>());
  private readonly link = this.disposables.add(new MutableDisposable<CoreLinkAddon>());
  private readonly recordingTimer = this.disposables.add(new MutableDisposable());
  /** While in a host: the element's place in it, its ResizeObserver, a pending fit. */
  private readonly attachment = this.disposables.add(new MutableDisposable());
  private readonly fitFrame = this.disposables.add(new MutableDisposable());
  private recorder: CastRecorder | undefined;
  private host: HTMLElement | undefined;
  private opened = false;
  private disposed = false;
  /** Bytes of earlier links (before a Reopen). */
  private receivedBefore = 0;
  private target: TerminalTarget;

  constructor(
    readonly paneId: string,
    target: TerminalTarget,
    private readonly env: PaneEnvironment,
  ) {
    this.target = target;
    const { modules } = env;
    const settings = env.settings();
    const colors = env.colors();
    this.element = document.createElement('div');
    this.element.className = 'term-surface';
    this.term = new modules.Terminal({
      allowProposedApi: true, // unicode 11 widths and the search highlights
      screenReaderMode: settings.screenReaderMode,
      cursorBlink: true,
      fontFamily: colors.fontFamily,
      fontSize: settings.fontSize,
      scrollback: settings.scrollback,
      theme: colors.theme,
      drawBoldTextInBrightColors: true,
      macOptionIsMeta: true,
      overviewRuler: { width: 8 },
    });
    this.fit = new modules.FitAddon();
    this.search = new modules.SearchAddon({ highlightLimit: 2000 });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.serializer = new modules.SerializeAddon();
    this.term.loadAddon(this.serializer);
    this.term.loadAddon(new modules.Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.loadAddon(
      new modules.WebLinksAddon((event, uri) => {
        event.preventDefault();
        // Electron opens http(s) links in the system browser (electron/main/security.ts).
        window.open(uri, '_blank', 'noopener,noreferrer');
      }),
    );
    this.status = createStore<PaneStatus>()(() => ({
      phase: { phase: 'opening' },
      cols: this.term.cols,
      rows: this.term.rows,
      renderer: 'dom',
      processTitle: '',
      generation: 0,
    }));
    this.disposables.add(
      this.term.onResize(({ cols, rows }) => {
        this.recorder?.resize(cols, rows);
        this.status.setState({ cols, rows });
      }),
    );
    this.disposables.add(
      this.term.onTitleChange((title) => this.status.setState({ processTitle: title })),
    );
    this.term.attachCustomKeyEventHandler((event) => this.onKey(event));
    // Only in the pane: the process never sees it. Names in it come from the runtime:
    // no control character of theirs reaches xterm as a sequence.
    if (target.banner !== undefined)
      this.term.write(`${target.banner.replace(/\p{Cc}/gu, ' ')}\r\n`);
  }

  /** `web › bash`: the container and what runs in it. */
  get title(): string {
    const phase = this.status.getState().phase;
    const name =
      phase.phase === 'live' || phase.phase === 'ended' ? phase.info?.containerName : undefined;
    return `${name ?? this.target.containerName} › ${commandLabel(this.target, this.link.value?.command ?? this.target.command)}`;
  }

  /** What a split or a new tab "like this one" opens: the same target, the same command. */
  get sameTarget(): TerminalTarget {
    const command = this.link.value?.command ?? this.target.command;
    return { ...this.target, ...(command !== undefined && { command }) };
  }

  /** The app's terminal colours as they are now (the find bar's highlights use them). */
  get colors(): TerminalColors {
    return this.env.colors();
  }

  get bytesReceived(): number {
    return this.receivedBefore + (this.link.value?.bytesReceived ?? 0);
  }

  /** Puts the terminal into `host` (opening xterm the first time) and keeps it fitted. */
  attach(host: HTMLElement): void {
    if (this.disposed) return;
    this.detach();
    const attachment = new DisposableStore();
    this.attachment.value = attachment;
    this.host = host;
    host.append(this.element);
    attachment.add(
      toDisposable(() => {
        if (this.element.parentElement === host) this.element.remove();
        this.host = undefined;
      }),
    );
    if (!this.opened) {
      this.opened = true;
      this.term.open(this.element);
      this.applyRenderer();
    }
    const observer = new ResizeObserver(() => this.scheduleFit());
    observer.observe(host);
    attachment.add(toDisposable(() => observer.disconnect()));
    attachment.add(toDisposable(() => this.fitFrame.clear()));
    this.fitNow();
    this.term.refresh(0, this.term.rows - 1);
    // The first attach opens the terminal, at the size the pane really has.
    if (this.link.value === undefined) this.connect();
  }

  /** Takes the element out of `host` (of whatever host it is in, without one). */
  detach(host?: HTMLElement): void {
    if (host !== undefined && host !== this.host) return;
    this.attachment.clear();
  }

  /** Puts the focus in the terminal; false while it is not on screen to take it. */
  focus(): boolean {
    this.term.focus();
    const input = this.term.textarea;
    return input !== undefined && input.ownerDocument.activeElement === input;
  }

  /** Opens the terminal again after it ended (a new `open`, a new process or attach). */
  reopen(): void {
    if (this.disposed || this.status.getState().phase.phase !== 'ended') return;
    const previous = this.link.value;
    if (previous?.command !== undefined)
      this.target = { ...this.target, command: previous.command };
    this.receivedBefore += previous?.bytesReceived ?? 0;
    this.link.clear();
    // The cursor comes back (it was hidden at the end), then a dim line marks the seam.
    this.term.write(
      `\x1b[?25h\r\n\x1b[2m── reopened ${new Date().toLocaleTimeString()} ──\x1b[22m\r\n`,
    );
    this.term.options.cursorBlink = true;
    this.connect();
  }

  /** Ends the terminal; the pane stays (showing how it ended) until it is closed. */
  close(): void {
    this.link.value?.close();
  }

  applySettings(settings: TerminalSettings): void {
    this.term.options.scrollback = settings.scrollback;
    this.term.options.screenReaderMode = settings.screenReaderMode;
    if (this.term.options.fontSize !== settings.fontSize) {
      this.term.options.fontSize = settings.fontSize;
      this.scheduleFit();
    }
    this.applyRenderer();
  }

  applyColors(colors: TerminalColors): void {
    this.term.options.theme = colors.theme;
    if (this.term.options.fontFamily !== colors.fontFamily) {
      this.term.options.fontFamily = colors.fontFamily;
      this.scheduleFit();
    }
  }

  /** Copies the selection; false when nothing is selected. */
  async copySelection(): Promise<boolean> {
    const text = this.term.getSelection();
    if (text === '') return false;
    await copyText(text);
    return true;
  }

  /** Pastes the clipboard (the menu's Paste; the keyboard uses the browser's paste event). */
  async pasteFromClipboard(): Promise<void> {
    try {
      const text = await navigator.clipboard.readText();
      if (text !== '') this.term.paste(text);
      this.term.focus();
    } catch (error) {
      this.status.setState({
        notice: `The clipboard can't be read here (${toAppErrorData(error).message}): paste with ${this.env.mac ? '⌘V' : 'Ctrl+Shift+V'}.`,
      });
    }
  }

  transcript(): string {
    return bufferText(this.term.buffer.normal);
  }

  /** The scrollback and screen as a standalone HTML page, colours and all. */
  transcriptHtml(): string {
    return this.serializer.serializeAsHTML({ includeGlobalBackground: true });
  }

  startRecording(): void {
    if (this.recorder?.recording === true) return;
    const startedAt = Date.now();
    this.recorder = new CastRecorder({
      width: this.term.cols,
      height: this.term.rows,
      title: this.title,
      startedAt,
    });
    this.status.setState({ recording: { startedAt, size: this.recorder.size }, notice: undefined });
    // The size shown in the pane: a few times a second, not once per chunk of output.
    const timer = setInterval(() => {
      const recorder = this.recorder;
      if (recorder === undefined) return;
      if (recorder.truncated) {
        this.stopRecording();
        this.status.setState({
          notice: 'The recording reached its size limit and stopped; what it has is kept.',
        });
        return;
      }
      this.status.setState({ recording: { startedAt, size: recorder.size } });
    }, recordingRefreshMs);
    this.recordingTimer.value = toDisposable(() => clearInterval(timer));
  }

  stopRecording(): SavedCast | undefined {
    const recorder = this.recorder;
    if (recorder === undefined) return undefined;
    this.recorder = undefined;
    this.recordingTimer.clear();
    recorder.stop();
    const title = this.title;
    const saved: SavedCast = {
      text: recorder.text(),
      fileName: fileNameFor(title.replace('›', ''), 'cast'),
      title,
      truncated: recorder.truncated,
    };
    this.status.setState({ recording: undefined, lastCast: saved });
    return saved;
  }

  /**
   * For the bench (debug.ts): an xterm made as this one is, drawn the same way, at its size,
   * over it, with nothing connected to it.
   */
  twin(): { readonly term: Terminal; dispose(): void } {
    const element = document.createElement('div');
    element.className = 'term-surface';
    element.style.cssText = 'position:absolute;inset:0;z-index:1';
    this.host?.append(element);
    const { cols, rows } = this.term;
    const term = new this.env.modules.Terminal({ ...this.term.options, cols, rows });
    term.open(element);
    const webgl = this.webgl.value === undefined ? undefined : new this.env.modules.WebglAddon();
    if (webgl !== undefined) term.loadAddon(webgl);
    return {
      term,
      dispose: () => {
        term.dispose();
        element.remove();
      },
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopRecording();
    this.disposables.dispose();
    this.term.dispose();
  }

  private connect(): void {
    const link: CoreLinkAddon = new CoreLinkAddon(this.env.client, this.target, {
      phase: (phase) => {
        if (this.link.value === link) this.onPhase(phase);
      },
      wrote: (bytes) => this.recorder?.output(bytes),
      notice: (message) => {
        if (this.link.value === link) this.status.setState({ notice: message });
      },
    });
    this.link.value = link;
    this.status.setState((state) => ({ generation: state.generation + 1, notice: undefined }));
    this.term.loadAddon(link);
  }

  private onPhase(phase: ConnectionPhase): void {
    this.status.setState({ phase });
    if (phase.phase === 'ended') {
      // Nothing reads the keyboard any more: no cursor inviting to type.
      this.term.options.cursorBlink = false;
      this.term.write('\x1b[?25l');
      if (this.recorder !== undefined) this.stopRecording();
    }
  }

  private onKey(event: KeyboardEvent): boolean {
    const settings = this.env.settings();
    // "Tab moves focus" (Ctrl+M): Tab and Shift+Tab keep their default, the browser's.
    if (
      settings.tabMovesFocus &&
      event.key === 'Tab' &&
      !event.ctrlKey &&
      !event.altKey &&
      !event.metaKey
    )
      return false;
    const shortcut = terminalShortcut(event, this.env.mac, this.env.browser);
    if (shortcut?.action === 'open-palette') {
      // Ctrl+K reaches the window's handler (the palette), or the program if so set.
      return settings.ctrlKToProgram;
    }
    if (shortcut === undefined) {
      // Enter in an ended pane reopens it, as the banner says.
      if (
        event.type === 'keydown' &&
        event.key === 'Enter' &&
        !event.ctrlKey &&
        !event.altKey &&
        !event.metaKey &&
        canReopen(this.status.getState().phase)
      ) {
        event.preventDefault();
        this.reopen();
        return false;
      }
      return true;
    }
    // false: xterm leaves the key alone; it goes on to the browser and the app.
    if (event.type !== 'keydown') return false;
    // The app's own shortcuts (switching views) and the browser's paste (which reaches
    // xterm as a paste event, no clipboard permission needed) keep their default action.
    if (shortcut.action === 'app' || shortcut.action === 'paste') return false;
    event.preventDefault();
    this.env.onShortcut(this, shortcut);
    return false;
  }

  private applyRenderer(): void {
    if (!this.opened) return;
    const wanted = shouldUseWebgl(this.env.settings().renderer);
    if (wanted && this.webgl.value === undefined) {
      try {
        const addon = new this.env.modules.WebglAddon();
        this.term.loadAddon(addon);
        this.webgl.value = addon;
        addon.onContextLoss(() => {
          // The GPU was reset or took the context back: draw with the DOM from now on.
          this.dropWebgl();
          this.status.setState({
            notice: 'The GPU context was lost; this terminal now draws without WebGL.',
          });
        });
        this.status.setState({ renderer: 'webgl' });
      } catch {
        this.dropWebgl();
      }
    } else if (!wanted && this.webgl.value !== undefined) {
      this.dropWebgl();
    }
  }

  private dropWebgl(): void {
    this.webgl.clear();
    this.status.setState({ renderer: 'dom' });
  }

  private scheduleFit(): void {
    if (this.fitFrame.value !== undefined || this.host === undefined) return;
    const frame = requestAnimationFrame(() => {
      this.fitFrame.take();
      this.fitNow();
    });
    this.fitFrame.value = toDisposable(() => cancelAnimationFrame(frame));
  }

  private fitNow(): void {
    if (!this.opened || this.host === undefined) return;
    const size = this.fit.proposeDimensions();
    // A hidden or zero-sized pane proposes nothing useful: keep the size it had.
    if (size === undefined || !Number.isFinite(size.cols) || size.cols < 2 || size.rows < 1) return;
    if (size.cols !== this.term.cols || size.rows !== this.term.rows) this.fit.fit();
  }
}
