import { AppError } from '../errors';

/**
 * What one RPC connection may make the other side hold. The per-message limits apply to
 * every message as it arrives, whatever carried it: a JSON text frame (where the
 * WebSocket's own maxPayload bounds the bytes before parsing), a structured-clone
 * MessagePort message, or (later) a binary frame, whose bytes count like a string's.
 */
export interface RpcLimits {
  /**
   * Largest message: its bytes on a WebSocket (maxPayload), its estimated size for a
   * structured clone (string lengths, binary byte lengths, a few bytes per other value).
   */
  readonly maxMessageBytes: number;
  /** Deepest nesting of arrays and objects in one message. */
  readonly maxDepth: number;
  /** Longest string (or binary payload) in one message. */
  readonly maxStringLength: number;
  /** Calls a client may have running at once on one connection. */
  readonly maxInFlightCalls: number;
  /** Subscriptions a client may hold at once on one connection. */
  readonly maxSubscriptions: number;
}

const MiB = 1024 * 1024;

export const defaultRpcLimits: RpcLimits = {
  maxMessageBytes: MiB,
  maxDepth: 32,
  maxStringLength: MiB,
  maxInFlightCalls: 512,
  maxSubscriptions: 1024,
};

/**
 * Contract names (services, methods, events) are short camelCase words; anything else is
 * not echoed back in an error, however it was sent.
 */
const contractName = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/** A name for an error message: itself when it could be a contract name, else a stand-in. */
export function printableName(name: string): string {
  return contractName.test(name) ? name : '(a name no contract has)';
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function isBinary(value: object): value is ArrayBuffer | ArrayBufferView {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

function tooLarge(limits: RpcLimits): AppError {
  return new AppError({
    code: 'resource-exhausted',
    message: `The message is larger than ${limits.maxMessageBytes / MiB} MiB, the most one message may carry.`,
    hint: 'Send less at once (a smaller spec, a shorter paste).',
  });
}

/**
 * Why `message` breaks `limits`, as the AppError its sender should get; undefined when it
 * is within them. The walk is iterative and stops at the first breach, so its cost is
 * bounded by the limits, not by the message.
 */
export function checkMessage(
  message: unknown,
  limits: RpcLimits = defaultRpcLimits,
): AppError | undefined {
  // Every value costs a little beyond its contents; containers are charged for all their
  // items before any is looked at, so a huge array is refused without walking it.
  const perValue = 8;
  let size = perValue;
  const stack: { value: unknown; depth: number }[] = [{ value: message, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength) return tooLong(limits);
      size += value.length;
    } else if (typeof value === 'object' && value !== null) {
      if (isBinary(value)) {
        if (value.byteLength > limits.maxStringLength) return tooLong(limits);
        size += value.byteLength;
      } else {
        if (depth >= limits.maxDepth) {
          return new AppError({
            code: 'invalid-argument',
            message: `The message nests deeper than ${limits.maxDepth} levels.`,
          });
        }
        if (Array.isArray(value)) {
          size += value.length * perValue;
          if (size > limits.maxMessageBytes) return tooLarge(limits);
          for (const item of value) stack.push({ value: item, depth: depth + 1 });
        } else if (isPlainObject(value)) {
          const keys = Object.keys(value);
          size += keys.length * perValue;
          if (size > limits.maxMessageBytes) return tooLarge(limits);
          for (const key of keys) {
            if (key.length > limits.maxStringLength) return tooLong(limits);
            size += key.length;
            stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
          }
        } else {
          return notPlain();
        }
      }
    } else if (typeof value === 'function' || typeof value === 'symbol') {
      return notPlain();
    }
    if (size > limits.maxMessageBytes) return tooLarge(limits);
  }
  return undefined;
}

function notPlain(): AppError {
  return new AppError({
    code: 'invalid-argument',
    message: 'The message holds something other than plain data.',
  });
}

function tooLong(limits: RpcLimits): AppError {
  return new AppError({
    code: 'resource-exhausted',
    message: `The message holds a string longer than ${limits.maxStringLength / MiB} MiB.`,
    hint: 'Send less at once (a smaller spec, a shorter paste).',
  });
}
