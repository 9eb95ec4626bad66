/**
 * A fake `terminals` service and `terminal` event for the feature's tests: it records
 * every call and lets a test push output and exits, through the real RPC protocol.
 */
import type { EventSink } from '../../../../shared/contract';
import { fakeEvents, fakeServices } from '../../../../shared/contract/testing';
import type { AppError } from '../../../../shared/errors';
import type { TerminalEvent, TerminalInfo, TerminalOpenRequest } from '../../../../shared/model';
import { createInMemoryPorthole, type MessagePortLike, type PortholeClient } from '../../platform';

/** Text (as UTF-8) or bytes, the way the core sends output. */
export function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? new TextEncoder().encode(value) : value;
}

function textOf(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return String.fromCharCode(...bytes);
  }
}

export interface FakeTerminalCore {
  readonly client: PortholeClient;
  readonly opened: TerminalOpenRequest[];
  /** Each write: the terminal and its bytes, as UTF-8 text (latin1 where it isn't). */
  readonly writes: [string, string][];
  /** Each write's bytes as they came. */
  readonly written: Uint8Array[];
  readonly resizes: [number, number][];
  readonly acks: number[];
  readonly closed: string[];
  probes: number;
  /** The current subscriber (throws when nobody listens). */
  sink(): EventSink<TerminalEvent>;
  /** Subscriptions so far. */
  subscriptions: number;
  /** Messages that crossed the port, each way. */
  readonly messages: { sent: number; received: number };
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
    written: [],
    resizes: [],
    acks: [],
    closed: [],
    probes: 0,
    subscriptions: 0,
    messages: { sent: 0, received: 0 },
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
          // Without a command the core finds the shell as it opens.
          command: request.command ?? (request.kind === 'exec' ? ['/bin/ash'] : []),
          tty: facts.tty ?? true,
          stdin: facts.stdin ?? true,
          transport: 'spdy',
          protocol: 'v5.channel.k8s.io',
          attempts: [],
          openedAt: 0,
        };
        return info;
      },
      write: (id: string, data: Uint8Array) => {
        core.written.push(data);
        core.writes.push([id, textOf(data)]);
      },
      resize: (_id: string, cols: number, rows: number) => {
        core.resizes.push([cols, rows]);
      },
      ack: (_id: string, bytes: number) => {
        core.acks.push(bytes);
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
  // Framed as the WebSocket frames them (binary frames for the bytes), and counted.
  const counted = (port: MessagePortLike): MessagePortLike => ({
    postMessage: (message) => {
      core.messages.sent += 1;
      port.postMessage(message);
    },
    onMessage: (listener) =>
      port.onMessage((message) => {
        core.messages.received += 1;
        listener(message);
      }),
    onClose: (listener) => port.onClose(listener),
    close: () => port.close(),
  });
  const client = createInMemoryPorthole(services, events, { clone: 'json', wrapPort: counted });
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
