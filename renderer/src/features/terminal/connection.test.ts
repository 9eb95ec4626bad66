import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { TerminalConnection, type ConnectionPhase, type TerminalTarget } from './connection';
import type { Timers } from './resize';
import { fakeTerminalCore as fakeCore, type FakeTerminalCore as FakeCore } from './testing';

const base64 = (value: string | Uint8Array): string => Buffer.from(value).toString('base64');

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

const shell: TerminalTarget = {
  nodeId: 'n1',
  containerId: 'c1',
  containerName: 'web',
  kind: 'exec',
};

function listen() {
  const phases: ConnectionPhase[] = [];
  const output: { bytes: number[]; done: () => void }[] = [];
  const notices: string[] = [];
  return {
    phases,
    output,
    notices,
    listener: {
      phase: (phase: ConnectionPhase) => phases.push(phase),
      output: (bytes: Uint8Array, done: () => void) => output.push({ bytes: [...bytes], done }),
      notice: (message: string) => notices.push(message),
    },
  };
}

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const run of cleanup) run();
  cleanup = [];
});

async function started(core: FakeCore, target = shell, timers?: Timers) {
  const seen = listen();
  const connection = new TerminalConnection(core.client, target, seen.listener, {
    ...(timers !== undefined && { timers }),
  });
  cleanup.push(() => {
    connection.dispose();
    core.client.dispose();
  });
  await connection.start(100, 30);
  await vi.waitFor(() => core.sink());
  return { connection, ...seen };
}

describe('TerminalConnection', () => {
  it('probes the shell, then opens at the pane size at once', async () => {
    const core = fakeCore();
    const { phases, connection } = await started(core);
    expect(core.probes).toBe(1);
    expect(core.opened).toEqual([
      { nodeId: 'n1', containerId: 'c1', kind: 'exec', command: ['/bin/ash'], cols: 100, rows: 30 },
    ]);
    expect(phases.map((phase) => phase.phase)).toEqual(['probing', 'opening', 'live']);
    expect(connection.command).toEqual(['/bin/ash']);
    expect(core.resizes).toEqual([]); // the first size travelled with open
  });

  it('runs a given command and attaches without probing', async () => {
    const core = fakeCore();
    await started(core, { ...shell, command: ['top', '-b'] });
    const attachCore = fakeCore({ tty: false });
    await started(attachCore, { ...shell, kind: 'attach', command: ['ignored'] });
    expect(core.probes + attachCore.probes).toBe(0);
    expect(core.opened[0]?.command).toEqual(['top', '-b']);
    expect(attachCore.opened[0]).not.toHaveProperty('command');
    expect(attachCore.opened[0]?.kind).toBe('attach');
  });

  it('sends keystrokes as utf8 and mouse reports as binary, in order', async () => {
    const core = fakeCore();
    const { connection } = await started(core);
    connection.write('ls\r');
    connection.write('\x03');
    connection.write('\x1b[M !!', 'binary');
    await vi.waitFor(() => expect(core.writes.length).toBeGreaterThanOrEqual(2));
    await vi.waitFor(() =>
      expect(core.writes.map(([, data]) => data).join('')).toBe('ls\r\x03\x1b[M !!'),
    );
    expect(core.writes.every(([id]) => id === 't1')).toBe(true);
    expect(core.writes.at(-1)).toEqual(['t1', '\x1b[M !!', 'binary']);
    expect(core.writes[0]).toEqual(['t1', 'ls\r', 'utf8']);
  });

  it('drops keystrokes when the container has no stdin', async () => {
    const core = fakeCore({ stdin: false });
    const { connection } = await started(core, { ...shell, kind: 'attach' });
    connection.write('x');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(core.writes).toEqual([]);
  });

  it('hands output over as bytes and acknowledges them once drawn', async () => {
    const core = fakeCore();
    const { output } = await started(core);
    const bytes = Uint8Array.from([0x68, 0x69, 0xe2, 0x82]); // "hi" and half a "€"
    core.sink().next({ type: 'output', stream: 'stdout', data: base64(bytes) });
    core.sink().next({ type: 'output', stream: 'stdout', data: base64(Uint8Array.from([0xac])) });
    await vi.waitFor(() => expect(output).toHaveLength(2));
    // With a tty the bytes go to xterm untouched, even a character split in two.
    expect(output.map((chunk) => chunk.bytes)).toEqual([[0x68, 0x69, 0xe2, 0x82], [0xac]]);
    output[0]?.done();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(core.acks).toEqual([]); // the second chunk is not drawn yet: batch
    output[1]?.done();
    await vi.waitFor(() => expect(core.acks).toEqual([5]));
  });

  it('acknowledges a flood in batches of 16 KiB', async () => {
    const core = fakeCore();
    const { output } = await started(core);
    const chunk = base64(new Uint8Array(4096).fill(0x78));
    for (let index = 0; index < 12; index += 1) {
      core.sink().next({ type: 'output', stream: 'stdout', data: chunk });
    }
    await vi.waitFor(() => expect(output).toHaveLength(12));
    for (const item of output) item.done();
    await vi.waitFor(() => expect(core.acks.reduce((a, b) => a + b, 0)).toBe(12 * 4096));
    expect(core.acks).toEqual([16384, 16384, 16384]);
  });

  it('shows stderr in red without a tty, and acknowledges the bytes the core sent', async () => {
    const core = fakeCore({ tty: false });
    const { output } = await started(core, { ...shell, kind: 'attach' });
    core.sink().next({ type: 'output', stream: 'stdout', data: base64('ok\n') });
    core.sink().next({ type: 'output', stream: 'stderr', data: base64('bad\n') });
    await vi.waitFor(() => expect(output).toHaveLength(2));
    const decode = (bytes: number[]): string => Buffer.from(bytes).toString('utf8');
    expect(output.map((chunk) => decode(chunk.bytes))).toEqual(['ok\n', '\x1b[31mbad\n\x1b[39m']);
    for (const item of output) item.done();
    await vi.waitFor(() => expect(core.acks).toEqual([7]));
  });

  it('debounces resizes and sends the last size once', async () => {
    const core = fakeCore();
    const timers = manualTimers();
    const { connection } = await started(core, shell, timers);
    connection.resize(101, 30);
    connection.resize(110, 33);
    connection.resize(120, 40);
    expect(core.resizes).toEqual([]);
    timers.fire();
    await vi.waitFor(() => expect(core.resizes).toEqual([[120, 40]]));
    connection.resize(120, 40);
    timers.fire();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(core.resizes).toEqual([[120, 40]]);
  });

  it('sends no resize without a tty', async () => {
    const core = fakeCore({ tty: false });
    const timers = manualTimers();
    const { connection } = await started(core, { ...shell, kind: 'attach' }, timers);
    connection.resize(90, 20);
    expect(timers.pending()).toBe(0);
  });

  it('ends with the exit code, then ignores late output', async () => {
    const core = fakeCore();
    const { phases, output } = await started(core);
    core.sink().next({ type: 'exit', exitCode: 3, reason: 'Exited with code 3.' });
    await vi.waitFor(() => expect(phases.at(-1)?.phase).toBe('ended'));
    expect(phases.at(-1)).toMatchObject({
      phase: 'ended',
      exitCode: 3,
      reason: 'Exited with code 3.',
    });
    expect(output).toEqual([]);
  });

  it('ends with the reason when the open fails', async () => {
    const core = fakeCore({
      failOpen: new AppError({
        code: 'not-found',
        message: 'No such container.',
        hint: 'Refresh.',
      }),
    });
    const seen = listen();
    const connection = new TerminalConnection(
      core.client,
      { ...shell, command: ['sh'] },
      seen.listener,
    );
    cleanup.push(() => core.client.dispose());
    await connection.start(80, 24);
    expect(seen.phases.at(-1)).toMatchObject({
      phase: 'ended',
      reason: 'No such container.',
      error: { code: 'not-found', hint: 'Refresh.' },
    });
  });

  it('ends when the subscription fails for good', async () => {
    const core = fakeCore();
    const { phases } = await started(core);
    core.sink().error(new AppError({ code: 'not-found', message: 'No terminal t1.' }));
    await vi.waitFor(() => expect(phases.at(-1)?.phase).toBe('ended'));
    expect(phases.at(-1)).toMatchObject({
      reason: 'The connection to the terminal was lost.',
      error: { message: 'No terminal t1.' },
    });
  });

  it('closes the core terminal when the pane closes', async () => {
    const core = fakeCore();
    const { connection, phases } = await started(core);
    connection.close();
    await vi.waitFor(() => expect(core.closed).toEqual(['t1']));
    expect(phases.at(-1)).toMatchObject({ phase: 'ended', reason: 'Closed.' });
    connection.write('x');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(core.writes).toEqual([]);
  });
});
