/**
 * The terminals service's arguments as they arrive from a page: checked before anything
 * reaches a node, each failure an `invalid-argument` that names the field.
 */
import { AppError } from '../../../../shared/errors';
import type {
  LeftoverProcess,
  LeftoverRef,
  TerminalKind,
  TerminalOpenRequest,
  TerminalTransportChoice,
} from '../../../../shared/model';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';

/** Terminal sizes travel as 16-bit numbers on the wire. */
const maxDimension = 0xffff;
/** A paste larger than this is split by the pane; it bounds one message's memory. */
export const maxWriteLength = 1024 * 1024;
const maxCommandArguments = 256;

function invalid(message: string): AppError {
  return new AppError({ code: 'invalid-argument', message });
}

export function requireDimension(value: unknown, name: string): number {
  const number = requireNonNegativeInteger(value, name);
  if (number < 1 || number > maxDimension) throw invalid(`${name} must be 1–${maxDimension}.`);
  return number;
}

function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  throw invalid(`${name} must be one of ${allowed.join(', ')}.`);
}

function requireCommand(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > maxCommandArguments) {
    throw invalid(`command must be a list of 1–${maxCommandArguments} strings.`);
  }
  return value.map((part: unknown, index) => {
    if (typeof part !== 'string' || part.length > 4096) {
      throw invalid(`command[${index}] must be a string of at most 4096 characters.`);
    }
    return part;
  });
}

export function parseOpenRequest(value: unknown): TerminalOpenRequest {
  const request = requireObject(value, 'request');
  const kind = oneOf<TerminalKind>(request.kind, 'kind', ['exec', 'attach']);
  const command = request.command === undefined ? undefined : requireCommand(request.command);
  if (kind === 'exec' && command !== undefined && command[0]?.trim() === '') {
    throw invalid('command must start with the program to run.');
  }
  const transport =
    request.transport === undefined
      ? undefined
      : oneOf<TerminalTransportChoice>(request.transport, 'transport', [
          'auto',
          'spdy',
          'websocket',
        ]);
  return {
    nodeId: requireString(request.nodeId, 'nodeId'),
    containerId: requireString(request.containerId, 'containerId', 256),
    kind,
    ...(kind === 'exec' && command !== undefined && { command }),
    cols: requireDimension(request.cols, 'cols'),
    rows: requireDimension(request.rows, 'rows'),
    ...(transport !== undefined && { transport }),
  };
}

export function parseLeftoverRef(value: unknown): LeftoverRef {
  const ref = requireObject(value, 'ref');
  return {
    nodeId: requireString(ref.nodeId, 'nodeId'),
    containerId: requireString(ref.containerId, 'containerId', 256),
    command: requireCommand(ref.command),
    openedAt: requireNonNegativeInteger(ref.openedAt, 'openedAt'),
  };
}

/** The parts of a LeftoverProcess that say which process to end. */
export function parseLeftoverProcess(value: unknown): LeftoverProcess {
  const process = requireObject(value, 'process');
  const pid = requireNonNegativeInteger(process.pid, 'pid');
  // The runtime's own init (pid 1) is never a session's process.
  if (pid < 2) throw invalid('pid must be a process of the session, not the container init.');
  return {
    pid,
    startTicks: requireNonNegativeInteger(process.startTicks, 'startTicks'),
    command: requireCommand(process.command),
    runningForMs: requireNonNegativeInteger(process.runningForMs, 'runningForMs'),
  };
}

/** Input bytes, as the pane encoded them (the process reads bytes, not text). */
export function inputBytes(data: unknown): Buffer {
  if (!(data instanceof Uint8Array)) throw invalid('data must be bytes (a Uint8Array).');
  if (data.byteLength > maxWriteLength) {
    throw invalid(`data is too long (at most ${maxWriteLength} bytes per write).`);
  }
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
