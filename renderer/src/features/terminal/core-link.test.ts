import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { terminalFlow } from '../../../../shared/model';
import {
  CoreLinkAddon,
  type ConnectionPhase,
  type LinkedTerminal,
  type TerminalTarget,
} from './core-link';
import type { Timers } from './resize';
import {
  fakeTerminalCore as fakeCore,
  toBytes,
  type FakeTerminalCore as FakeCore,
} from './testing';

/** Timers the test fires by hand: the debounce without waiting 100 ms. */
function manualTimers(): Timers & { fire(): void; pending(): number } {
  const queue = new Map<number, () => void>();
  let next = 1;
  return {
    setTimeout: (run) => {
      queue.set(next, run);
      return next++;
    },
    clearTimeout: (handle) => queue.delete(handle as number),
    fire: () => {
      const runs = [...queue.values()];
      queue.clear();
      for (const run of runs) run();
    },
    pending: () => queue.size,
  };
}

type Listener<T> = (value: T) => void;

function emitter<T>() {
  const listeners = new Set<Listener<T>>();
  return {
    event: (listener: Listener<T>) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    fire: (value: T) => {
      for (const listener of [...listeners]) listener(value);
    },
    get count() {
      return listeners.size;
    },
  };
}

/** The members of xterm's Terminal the link uses; writes wait for the test to parse them. */
function fakeTerm(cols = 100, rows = 30) {
  const data = emitter<string>();
  const binary = emitter<string>();
  const resize = emitter<{ cols: number; rows: number }>();
  const written: { bytes: number[]; done: (() => void) | undefined }[] = [];
  const term = {
    cols,
    rows,
    options: {} as LinkedTerminal['options'],
    onData: data.event,
    onBinary: binary.event,
    onResize: resize.event,
    write: (bytes: string | Uint8Array, done?: () => void) => {
      written.push({ bytes: [...toBytes(bytes)], done });
    },
  };
  return {
    term: term as unknown as LinkedTerminal,
    written,
    type: (text: string) => data.fire(text),
    binary: (text: string) => binary.fire(text),
    resize: (size: { cols: number; rows: number }) => resize.fire(size),
    listeners: () => data.count + binary.count + resize.count,
    /** xterm parsed everything written so far. */
    parse: () => {
      for (const item of written.splice(0)) item.done?.();
    },
  };
}

const shell: TerminalTarget = {
  nodeId: 'n1',
  containerId: 'c1',
  containerName: 'web',
  kind: 'exec',
};

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const run of cleanup) run();
  cleanup = [];
});

async function linked(core: FakeCore, target = shell, timers?: Timers) {
  const phases: ConnectionPhase[] = [];
  const notices: string[] = [];
  const wrote: number[][] = [];
  const link = new CoreLinkAddon(
    core.client,
    target,
    {
      phase: (phase) => phases.push(phase),
      wrote: (bytes) => wrote.push([...bytes]),
      notice: (message) => notices.push(message),
    },
    { ...(timers !== undefined && { timers }) },
  );
  const term = fakeTerm();
  cleanup.push(() => {
    link.dispose();
    core.client.dispose();
  });
  link.link(term.term);
  await vi.waitFor(() => core.sink());
  return { link, phases, notices, wrote, ...term };
}

const text = (bytes: number[]): string => Buffer.from(bytes).toString('utf8');

describe('CoreLinkAddon', () => {
  it('opens the container shell in one call, at the terminal size', async () => {
    const core = fakeCore();
    const { phases, link, term } = await linked(core);
    expect(core.probes).toBe(0);
    expect(core.opened).toEqual([
      { nodeId: 'n1', containerId: 'c1', kind: 'exec', cols: 100, rows: 30 },
    ]);
    expect(phases.map((phase) => phase.phase)).toEqual(['live']);
    expect(link.phase).toMatchObject({ phase: 'live' });
    expect(link.command).toEqual(['/bin/ash']); // what the core chose: what Reopen runs
    expect(term.options.convertEol).toBe(false);
    expect(core.resizes).toEqual([]); // the first size travelled with open
  });

  it('runs a given command, and attaches without one', async () => {
    const core = fakeCore();
    await linked(core, { ...shell, command: ['top', '-b'] });
    const attachCore = fakeCore({ tty: false });
    const attached = await linked(attachCore, { ...shell, kind: 'attach', command: ['x'] });
    expect(core.opened[0]?.command).toEqual(['top', '-b']);
    expect(attachCore.opened[0]).not.toHaveProperty('command');
    expect(attachCore.opened[0]?.kind).toBe('attach');
    expect(attached.term.options.convertEol).toBe(true);
  });

  it('sends keystrokes as UTF-8 and mouse reports as one byte per character, in order', async () => {
    const core = fakeCore();
    const { type, binary } = await linked(core);
    type('ls é\r');
    type('\x03');
    binary('\x1b[M \xff!');
    await vi.waitFor(() => expect(core.written).toHaveLength(3));
    expect(core.writes.every(([id]) => id === 't1')).toBe(true);
    expect(core.writes.map(([, data]) => data).slice(0, 2)).toEqual(['ls é\r', '\x03']);
    expect([...(core.written[2] ?? [])]).toEqual([0x1b, 0x5b, 0x4d, 0x20, 0xff, 0x21]);
  });

  it('keeps what is typed while opening and sends it once live', async () => {
    let open!: () => void;
    const core = fakeCore({ openGate: new Promise<void>((resolve) => (open = resolve)) });
    const link = new CoreLinkAddon(core.client, shell, {
      phase: () => undefined,
      wrote: () => undefined,
      notice: () => undefined,
    });
    cleanup.push(() => {
      link.dispose();
      core.client.dispose();
    });
    const term = fakeTerm();
    link.link(term.term);
    term.type('echo hi');
    term.type('\r');
    open();
    await vi.waitFor(() => expect(core.writes.map(([, data]) => data).join('')).toBe('echo hi\r'));
  });

  it('drops keystrokes when the container has no stdin', async () => {
    const core = fakeCore({ stdin: false });
    const { type } = await linked(core, { ...shell, kind: 'attach' });
    type('x');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(core.writes).toEqual([]);
  });

  it('splits a long paste into pieces of at most 64 KiB, in order', async () => {
    const core = fakeCore();
    const { type } = await linked(core);
    const paste = 'abcdefgh'.repeat(20_000); // 160 000 bytes
    type(paste);
    await vi.waitFor(() => expect(core.written).toHaveLength(3));
    expect(core.written.map((piece) => piece.length)).toEqual([65536, 65536, 28928]);
    expect(core.writes.map(([, data]) => data).join('')).toBe(paste);
  });

  it('writes output into xterm as bytes, untouched with a tty', async () => {
    const core = fakeCore();
    const { written } = await linked(core);
    const bytes = Uint8Array.from([0x68, 0x69, 0xe2, 0x82]); // "hi" and half a "€"
    core.sink().next({ type: 'output', stream: 'stdout', data: bytes });
    core.sink().next({ type: 'output', stream: 'stdout', data: Uint8Array.from([0xac]) });
    await vi.waitFor(() => expect(written).toHaveLength(2));
    expect(written.map((chunk) => chunk.bytes)).toEqual([[0x68, 0x69, 0xe2, 0x82], [0xac]]);
  });

  it('acknowledges only whole batches, never what an echo leaves', async () => {
    const core = fakeCore();
    const { written, parse } = await linked(core);
    const batch = terminalFlow.ackBatchBytes;
    expect(batch).toBeLessThanOrEqual(terminalFlow.lowWatermark);
    core.sink().next({ type: 'output', stream: 'stdout', data: toBytes('x') });
    await vi.waitFor(() => expect(written).toHaveLength(1));
    parse();
    // A few bytes drawn and xterm idle: nothing is acknowledged for them.
    const chunk = new Uint8Array(4096).fill(0x78);
    const chunks = (2 * batch) / chunk.length + 1;
    for (let index = 0; index < chunks; index += 1) {
      core.sink().next({ type: 'output', stream: 'stdout', data: chunk });
    }
    await vi.waitFor(() => expect(written).toHaveLength(chunks));
    parse();
    await vi.waitFor(() => expect(core.acks.reduce((a, b) => a + b, 0)).toBe(2 * batch));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // 1 + 2 batches + 4096 bytes were drawn: the two whole batches, and nothing else.
    expect(core.acks.every((bytes) => bytes % batch === 0)).toBe(true);
    expect(core.acks.reduce((a, b) => a + b, 0)).toBe(2 * batch);
  });

  it('costs two messages per echoed keystroke: the input and its echo', async () => {
    const core = fakeCore();
    const { type, written, parse } = await linked(core);
    const before = { ...core.messages };
    for (let key = 0; key < 50; key += 1) {
      type('a');
      await vi.waitFor(() => expect(core.written).toHaveLength(key + 1), { interval: 1 });
      core.sink().next({ type: 'output', stream: 'stdout', data: toBytes('a') });
      await vi.waitFor(() => expect(written).toHaveLength(1), { interval: 1 });
      parse();
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    const sent = core.messages.sent - before.sent;
    const received = core.messages.received - before.received;
    expect({ sent, received }).toEqual({ sent: 50, received: 50 });
    expect(core.acks).toEqual([]);
  });

  it('shows stderr in red without a tty, and counts the bytes the core sent', async () => {
    const core = fakeCore({ tty: false });
    const { written, link } = await linked(core, { ...shell, kind: 'attach' });
    core.sink().next({ type: 'output', stream: 'stdout', data: toBytes('ok\n') });
    core.sink().next({ type: 'output', stream: 'stderr', data: toBytes('bad\n') });
    await vi.waitFor(() => expect(written).toHaveLength(2));
    expect(written.map((chunk) => text(chunk.bytes))).toEqual(['ok\n', '\x1b[31mbad\n\x1b[39m']);
    expect(link.bytesReceived).toBe(7);
  });

  it('echoes and edits lines itself without a tty', async () => {
    const core = fakeCore({ tty: false });
    const { type, written, wrote } = await linked(core, { ...shell, kind: 'attach' });
    type('lx\x7fs\r');
    await vi.waitFor(() => expect(core.writes.map(([, data]) => data)).toEqual(['ls\n']));
    expect(written.length).toBeGreaterThan(0);
    expect(wrote.length).toBe(written.length); // the recording sees the local echo too
  });

  it('debounces resizes and sends the last size once', async () => {
    const core = fakeCore();
    const timers = manualTimers();
    const { resize } = await linked(core, shell, timers);
    resize({ cols: 101, rows: 30 });
    resize({ cols: 110, rows: 33 });
    resize({ cols: 120, rows: 40 });
    expect(core.resizes).toEqual([]);
    timers.fire();
    await vi.waitFor(() => expect(core.resizes).toEqual([[120, 40]]));
    resize({ cols: 120, rows: 40 });
    timers.fire();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(core.resizes).toEqual([[120, 40]]);
  });

  it('sends no resize without a tty', async () => {
    const core = fakeCore({ tty: false });
    const timers = manualTimers();
    const { resize } = await linked(core, { ...shell, kind: 'attach' }, timers);
    resize({ cols: 90, rows: 20 });
    expect(timers.pending()).toBe(0);
  });

  it('shows a notice the core sends for refused input, and stays live', async () => {
    const core = fakeCore();
    const { notices, link } = await linked(core);
    core.sink().next({
      type: 'notice',
      error: { code: 'resource-exhausted', message: 'Too much input is waiting.' },
    });
    await vi.waitFor(() => expect(notices).toEqual(['Too much input is waiting.']));
    expect(link.phase.phase).toBe('live');
  });

  it('ends with the exit code, then ignores late output', async () => {
    const core = fakeCore();
    const { phases, written } = await linked(core);
    core.sink().next({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    await vi.waitFor(() => expect(phases.at(-1)?.phase).toBe('ended'));
    expect(phases.at(-1)).toMatchObject({
      phase: 'ended',
      exitCode: 3,
      reason: 'Exited with code 3.',
    });
    expect(written).toEqual([]);
  });

  it('ends with the reason when the open fails', async () => {
    const core = fakeCore({
      failOpen: new AppError({
        code: 'not-found',
        message: 'No such container.',
        hint: 'Refresh.',
      }),
    });
    const phases: ConnectionPhase[] = [];
    const link = new CoreLinkAddon(
      core.client,
      { ...shell, command: ['sh'] },
      { phase: (phase) => phases.push(phase), wrote: () => undefined, notice: () => undefined },
    );
    cleanup.push(() => core.client.dispose());
    link.link(fakeTerm(80, 24).term);
    await vi.waitFor(() =>
      expect(phases.at(-1)).toMatchObject({
        phase: 'ended',
        reason: 'No such container.',
        error: { code: 'not-found', hint: 'Refresh.' },
      }),
    );
  });

  it('ends when the subscription fails for good', async () => {
    const core = fakeCore();
    const { phases } = await linked(core);
    core.sink().error(new AppError({ code: 'not-found', message: 'No terminal t1.' }));
    await vi.waitFor(() => expect(phases.at(-1)?.phase).toBe('ended'));
    expect(phases.at(-1)).toMatchObject({
      reason: 'The connection to the terminal was lost.',
      error: { message: 'No terminal t1.' },
    });
  });

  it('closes the core terminal on dispose and lets go of the terminal', async () => {
    const core = fakeCore();
    const { link, phases, type, listeners } = await linked(core);
    expect(listeners()).toBe(3);
    link.dispose();
    await vi.waitFor(() => expect(core.closed).toEqual(['t1']));
    expect(phases.at(-1)).toMatchObject({ phase: 'ended', reason: 'Closed.' });
    expect(listeners()).toBe(0);
    type('x');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(core.writes).toEqual([]);
  });
});
