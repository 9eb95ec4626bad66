/**
 * A fake `terminals` service and `terminal` event for the feature's tests: it records
 * every call and lets a test push output and exits, through the real RPC protocol.
 */
import type { EventSink } from '../../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import type { AppError } from '../../../../shared/errors';
import type { TerminalEvent, TerminalInfo, TerminalOpenRequest } from '../../../../shared/model';
import { createInMemoryPorthole, type PortholeClient } from '../../platform';

/** Text or bytes → base64, the way the core sends output. */
export function toBase64(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export interface FakeTerminalCore {
  readonly client: PortholeClient;
  readonly opened: TerminalOpenRequest[];
  readonly writes: [string, string, string | undefined][];
  readonly resizes: [number, number][];
  readonly acks: number[];
  readonly closed: string[];
  probes: number;
  /** The current subscriber (throws when nobody listens). */
  sink(): EventSink<TerminalEvent>;
  /** Subscriptions so far. */
  subscriptions: number;
}

export function fakeTerminalCore(
  facts: {
    tty?: boolean;
    stdin?: boolean;
    failOpen?: AppError;
    /** `open` answers once this settles (a slow runtime), at once without it. */
    openGate?: Promise<void>;
  } = {},
): FakeTerminalCore {
  let current: EventSink<TerminalEvent> | undefined;
  const core: Omit<FakeTerminalCore, 'client' | 'sink'> = {
    opened: [],
    writes: [],
    resizes: [],
    acks: [],
    closed: [],
    probes: 0,
    subscriptions: 0,
  };
  const services = fakeServices({
    terminals: {
      probeShell: () => {
        core.probes += 1;
        return Promise.resolve(['/bin/ash']);
      },
      open: async (request: TerminalOpenRequest) => {
        await facts.openGate;
        if (facts.failOpen !== undefined) throw facts.failOpen;
        core.opened.push(request);
        const info: TerminalInfo = {
          terminalId: `t${core.opened.length}`,
          sessionId: 's1',
          nodeId: request.nodeId,
          containerId: request.containerId,
          containerName: 'web',
          kind: request.kind,
          command: request.command ?? [],
          tty: facts.tty ?? true,
          stdin: facts.stdin ?? true,
          transport: 'spdy',
          protocol: 'v5.channel.k8s.io',
          attempts: [],
          openedAt: 0,
        };
        return info;
      },
      write: (id: string, data: string, encoding?: 'utf8' | 'binary') => {
        core.writes.push([id, data, encoding]);
        return Promise.resolve();
      },
      resize: (_id: string, cols: number, rows: number) => {
        core.resizes.push([cols, rows]);
        return Promise.resolve();
      },
      ack: (_id: string, bytes: number) => {
        core.acks.push(bytes);
        return Promise.resolve();
      },
      close: (id: string) => {
        core.closed.push(id);
        return Promise.resolve();
      },
    },
  });
  const events = fakeEvents({
    terminal: (_argument, sink) => {
      current = sink;
      core.subscriptions += 1;
      return { dispose: () => (current = undefined) };
    },
  });
  const client = createInMemoryPorthole(services, events);
  return Object.assign(core, {
    client,
    sink: () => {
      if (current === undefined) throw new Error('nobody subscribed');
      return current;
    },
  });
}

/**
 * happy-dom has no canvas; xterm's overview ruler (the search highlights' gutter) wants a
 * 2D context. One that draws nothing is enough for tests that read xterm's buffer.
 */
export function inertCanvasContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const values = new Map<PropertyKey, unknown>([['canvas', canvas]]);
  return new Proxy(
    {},
    {
      get: (_target, property) =>
        values.has(property)
          ? values.get(property)
          : property === 'measureText'
            ? () => ({ width: 8 })
            : () => undefined,
      set: (_target, property, value) => {
        values.set(property, value);
        return true;
      },
    },
  ) as CanvasRenderingContext2D;
}

/** Gives every canvas the inert 2D context (and no WebGL); returns what undoes it. */
export function installInertCanvas(): () => void {
  const prototype = HTMLCanvasElement.prototype;
  const original = Object.getOwnPropertyDescriptor(prototype, 'getContext');
  Object.defineProperty(prototype, 'getContext', {
    configurable: true,
    writable: true,
    value(this: HTMLCanvasElement, kind: string): RenderingContext | null {
      return kind === '2d' ? inertCanvasContext(this) : null;
    },
  });
  return () => {
    if (original !== undefined) Object.defineProperty(prototype, 'getContext', original);
  };
}
