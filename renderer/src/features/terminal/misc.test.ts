import { describe, expect, it } from 'vitest';
import type { TerminalInfo } from '../../../../shared/model';
import { canReopen, endedSummary, dotState, startingText } from './phase';
import { playbackTimeline } from './player';
import { defaultSettings, normalizeSettings } from './settings';
import { cssColorToHex } from './theme';
import { bufferText, type BufferLike } from './transcript';
import { fileNameFor } from './files';

const info = { kind: 'exec', containerName: 'web' } as TerminalInfo;

describe('phase', () => {
  it('says how a session ended', () => {
    expect(
      endedSummary({ phase: 'ended', info, exitCode: 3, reason: 'Exited with code 3.' }),
    ).toEqual({
      title: 'The process exited with code 3.',
      tone: 'error',
    });
    expect(
      endedSummary({ phase: 'ended', info, exitCode: 0, reason: 'The shell exited.' }),
    ).toEqual({
      title: 'The process exited with code 0.',
      detail: 'The shell exited.',
      tone: 'ok',
    });
    expect(
      endedSummary({
        phase: 'ended',
        reason: 'The stream dropped.',
        error: { code: 'connection-lost', message: 'The node went away.', hint: 'Reconnect it.' },
      }),
    ).toEqual({
      title: 'The node went away.',
      detail: 'The stream dropped.',
      hint: 'Reconnect it.',
      tone: 'error',
    });
    // Stopped under the session: said as such, with what can be done instead of Reopen.
    const stopped = {
      phase: 'ended',
      info: { ...info, command: ['/bin/ash'] },
      exitCode: 137,
      reason: 'The container was stopped (exit code 137); the session ended with it.',
      container: 'stopped',
    } as const;
    expect(endedSummary(stopped)).toEqual({
      title: 'The container was stopped.',
      detail: 'The ash session ended with it (exit code 137).',
      hint: expect.stringContaining('CRI can’t start a stopped container again') as string,
      tone: 'ok',
    });
    expect(canReopen(stopped)).toBe(false);
    expect(dotState(stopped)).toBe('ended');
    expect(canReopen({ phase: 'ended', info, exitCode: 3, reason: '' })).toBe(true);
    expect(dotState({ phase: 'ended', reason: 'Closed.' })).toBe('ended');
    expect(dotState({ phase: 'ended', exitCode: 1, reason: '' })).toBe('failed');
    expect(dotState({ phase: 'opening', shell: true })).toBe('starting');
  });

  it('says what is starting', () => {
    expect(startingText({ phase: 'opening', shell: true }, 'web')).toBe(
      'Looking for a shell in web…',
    );
    expect(startingText({ phase: 'opening', command: ['/bin/ash'] }, 'web')).toBe(
      'Starting /bin/ash in web…',
    );
    expect(startingText({ phase: 'opening' }, 'web')).toBe('Attaching to web…');
    expect(startingText({ phase: 'live', info }, 'web')).toBeUndefined();
  });
});

describe('playbackTimeline', () => {
  it('keeps output and resizes and shortens long pauses', () => {
    const timeline = playbackTimeline(
      [
        { time: 0.5, type: 'o', data: 'a' },
        { time: 1, type: 'i', data: 'x' },
        { time: 10, type: 'o', data: 'b' },
        { time: 10.5, type: 'r', data: '100x30' },
        { time: 11, type: 'm', data: 'mark' },
      ],
      2,
    );
    expect(timeline.map((event) => [event.time, event.type])).toEqual([
      [0.5, 'o'],
      [2.5, 'o'],
      [3, 'r'],
    ]);
  });
});

describe('settings', () => {
  it('makes whatever was stored valid', () => {
    expect(normalizeSettings(undefined)).toEqual(defaultSettings);
    expect(normalizeSettings({ scrollback: 1e9, fontSize: 2, renderer: 'canvas' })).toEqual({
      scrollback: 50_000,
      fontSize: 8,
      renderer: 'auto',
      screenReaderMode: false,
      tabMovesFocus: false,
      ctrlKToProgram: false,
    });
    expect(
      normalizeSettings({
        scrollback: 2000.4,
        fontSize: 15,
        renderer: 'dom',
        screenReaderMode: true,
        tabMovesFocus: 'yes',
      }),
    ).toEqual({
      scrollback: 2000,
      fontSize: 15,
      renderer: 'dom',
      screenReaderMode: true,
      tabMovesFocus: false,
      ctrlKToProgram: false,
    });
  });
});

describe('cssColorToHex', () => {
  it('turns computed colours into what xterm takes', () => {
    expect(cssColorToHex('rgb(255, 255, 255)')).toBe('#ffffff');
    expect(cssColorToHex('rgba(36, 99, 216, 0.22)')).toBe('#2463d838');
    expect(cssColorToHex('rgba(36, 99, 216, 0.22)', false)).toBe('#2463d8');
    expect(cssColorToHex('rgb(36 99 216 / 50%)')).toBe('#2463d880');
    expect(cssColorToHex('#123456')).toBe('#123456');
    expect(cssColorToHex('color(display-p3 1 0 0)')).toBeUndefined();
  });
});

describe('bufferText', () => {
  it('joins wrapped lines and trims blanks', () => {
    const lines = [
      { text: '$ echo ', wrapped: false },
      { text: 'hello   ', wrapped: true },
      { text: 'hello   ', wrapped: false },
      { text: '', wrapped: false },
      { text: '   ', wrapped: false },
    ];
    const buffer: BufferLike = {
      length: lines.length,
      getLine: (index) => {
        const line = lines[index];
        return line === undefined
          ? undefined
          : { isWrapped: line.wrapped, translateToString: () => line.text };
      },
    };
    expect(bufferText(buffer)).toBe('$ echo hello\nhello\n');
  });
});

describe('fileNameFor', () => {
  it('names a file after the terminal and the time', () => {
    expect(fileNameFor('web  bash', 'cast', new Date(2024, 4, 1, 12, 4, 5))).toBe(
      'web-bash-2024-05-01-120405.cast',
    );
    expect(fileNameFor('››', 'txt', new Date(2024, 0, 2, 3, 4, 5))).toBe(
      'terminal-2024-01-02-030405.txt',
    );
  });
});
