/**
 * Plays an asciicast recording into a read-only xterm: play/pause, speed, seek. Like a
 * terminal session it lives in the feature store, so switching away doesn't stop or lose
 * it.
 */
import type { Terminal } from '@xterm/xterm';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Disposable } from '../../../../shared/lifecycle';
import { parseCastSize, type Cast, type CastEvent } from './asciicast';
import type { TerminalSettings } from './settings';
import type { TerminalColors } from './theme';
import type { XtermModules } from './xterm-modules';

export const playbackSpeeds = [0.5, 1, 2, 4, 8] as const;

export interface PlayerStatus {
  readonly playing: boolean;
  /** Seconds into the recording (on the timeline with long pauses shortened). */
  readonly position: number;
  readonly duration: number;
  readonly speed: number;
}

/** Pauses longer than this are shortened when the recording doesn't say otherwise. */
export const defaultIdleLimit = 3;

/**
 * The events a player shows, in order: output and resizes only, with every pause longer
 * than `idleLimit` seconds shortened to it (nobody wants to watch a shell wait).
 */
export function playbackTimeline(events: readonly CastEvent[], idleLimit: number): CastEvent[] {
  const timeline: CastEvent[] = [];
  let shift = 0;
  let previous = 0;
  for (const event of events) {
    if (event.type !== 'o' && event.type !== 'r') continue;
    const gap = event.time - previous;
    if (gap > idleLimit) shift += gap - idleLimit;
    previous = event.time;
    timeline.push({ ...event, time: event.time - shift });
  }
  return timeline;
}

/** How often the position display moves while nothing is printed. */
const positionRefreshMs = 250;

export interface PlayerEnvironment {
  readonly modules: XtermModules;
  readonly settings: () => TerminalSettings;
  readonly colors: () => TerminalColors;
}

export class CastPlayer implements Disposable {
  readonly element: HTMLDivElement;
  readonly term: Terminal;
  readonly status: StoreApi<PlayerStatus>;
  private readonly events: readonly CastEvent[];
  private index = 0;
  private anchor = { wall: 0, position: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private opened = false;
  private host: HTMLElement | undefined;

  constructor(
    readonly paneId: string,
    readonly cast: Cast,
    readonly title: string,
    env: PlayerEnvironment,
  ) {
    this.events = playbackTimeline(cast.events, cast.header.idleTimeLimit ?? defaultIdleLimit);
    const colors = env.colors();
    this.element = document.createElement('div');
    this.element.className = 'term-surface term-player-surface';
    this.term = new env.modules.Terminal({
      cols: cast.header.width,
      rows: cast.header.height,
      disableStdin: true,
      cursorBlink: false,
      fontFamily: colors.fontFamily,
      fontSize: env.settings().fontSize,
      scrollback: env.settings().scrollback,
      theme: colors.theme,
      allowProposedApi: true,
    });
    this.term.loadAddon(new env.modules.Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.attachCustomKeyEventHandler((event) => {
      if (event.type === 'keydown') this.onKey(event);
      return false;
    });
    this.status = createStore<PlayerStatus>()(() => ({
      playing: false,
      position: 0,
      duration: this.events[this.events.length - 1]?.time ?? 0,
      speed: 1,
    }));
  }

  attach(host: HTMLElement): void {
    this.host = host;
    host.append(this.element);
    if (!this.opened) {
      this.opened = true;
      this.term.open(this.element);
    }
  }

  detach(host?: HTMLElement): void {
    if (host !== undefined && host !== this.host) return;
    if (this.host !== undefined && this.element.parentElement === this.host) this.element.remove();
    this.host = undefined;
  }

  /** Puts the focus in the player; false while it is not on screen to take it. */
  focus(): boolean {
    this.term.focus();
    const input = this.term.textarea;
    return input !== undefined && input.ownerDocument.activeElement === input;
  }

  play(): void {
    const { playing, position, duration } = this.status.getState();
    if (playing) return;
    if (position >= duration) this.seek(0);
    this.anchor = { wall: performance.now(), position: this.status.getState().position };
    this.status.setState({ playing: true });
    this.step();
  }

  pause(): void {
    if (!this.status.getState().playing) return;
    this.clearTimer();
    this.status.setState({ playing: false, position: this.now() });
  }

  toggle(): void {
    if (this.status.getState().playing) this.pause();
    else this.play();
  }

  setSpeed(speed: number): void {
    const position = this.now();
    this.anchor = { wall: performance.now(), position };
    this.status.setState({ speed, position });
    if (this.status.getState().playing) {
      this.clearTimer();
      this.step();
    }
  }

  /** Jumps to `seconds`: the screen is rebuilt from the start, then playback goes on. */
  seek(seconds: number): void {
    const { duration, playing } = this.status.getState();
    const target = Math.min(duration, Math.max(0, seconds));
    this.clearTimer();
    this.term.reset();
    this.term.resize(this.cast.header.width, this.cast.header.height);
    this.index = 0;
    this.apply(target);
    this.anchor = { wall: performance.now(), position: target };
    this.status.setState({ position: target });
    if (playing) this.step();
  }

  applySettings(settings: TerminalSettings): void {
    this.term.options.fontSize = settings.fontSize;
    this.term.options.scrollback = settings.scrollback;
  }

  applyColors(colors: TerminalColors): void {
    this.term.options.theme = colors.theme;
    this.term.options.fontFamily = colors.fontFamily;
  }

  dispose(): void {
    this.clearTimer();
    this.detach();
    this.term.dispose();
  }

  /** The playback head now, in recording seconds. */
  private now(): number {
    const { playing, position, speed, duration } = this.status.getState();
    if (!playing) return position;
    const elapsed = ((performance.now() - this.anchor.wall) / 1000) * speed;
    return Math.min(duration, this.anchor.position + elapsed);
  }

  private step(): void {
    this.timer = undefined;
    const position = this.now();
    this.apply(position);
    const { duration, speed } = this.status.getState();
    const next = this.events[this.index];
    if (next === undefined || position >= duration) {
      this.status.setState({ playing: false, position: duration });
      return;
    }
    this.status.setState({ position });
    const wait = ((next.time - position) / speed) * 1000;
    this.timer = setTimeout(() => this.step(), Math.max(0, Math.min(wait, positionRefreshMs)));
  }

  /** Draws every event up to `position`, output batched into one write. */
  private apply(position: number): void {
    let text = '';
    for (
      let event = this.events[this.index];
      event !== undefined && event.time <= position;
      event = this.events[this.index]
    ) {
      this.index += 1;
      if (event.type === 'o') {
        text += event.data;
        continue;
      }
      const size = parseCastSize(event.data);
      if (size === undefined) continue;
      if (text !== '') this.term.write(text);
      text = '';
      this.term.resize(size.cols, size.rows);
    }
    if (text !== '') this.term.write(text);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === ' ') this.toggle();
    else if (event.key === 'ArrowLeft') this.seek(this.now() - 5);
    else if (event.key === 'ArrowRight') this.seek(this.now() + 5);
    else if (event.key === 'Home') this.seek(0);
    else return;
    event.preventDefault();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
