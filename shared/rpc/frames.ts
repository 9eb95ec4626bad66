/**
 * How an RPC message travels where only text or bytes can (browser mode's WebSocket, and
 * the in-memory pair that stands in for it in tests): a message without binary payloads is
 * one JSON text frame; one with payloads (terminal output, input) is one binary frame, a
 * small JSON header naming the message followed by the payloads' raw bytes, so bytes are
 * never inflated into base64 or JSON arrays.
 *
 *   binary frame = u32 header length (big-endian) · header (UTF-8 JSON) · payload bytes…
 *   header       = { "b": [length of each payload…], "m": the message }
 *
 * In the header's message each payload stands as `{ "$bytes": index }`, where the protocol
 * carries bytes (a call's or notification's arguments, an event payload's fields). The
 * decoder gives them back as views into the frame (no copy).
 */

/** What a transport carries: a text frame or a binary frame. */
export type Frame = string | Uint8Array;

const marker = '$bytes';
/** shared has no DOM or Node types; every runtime Porthole runs on has these globals. */
interface TextCodecs {
  readonly TextEncoder: new () => { encode(text: string): Uint8Array };
  readonly TextDecoder: new (
    label: string,
    options: { fatal: boolean },
  ) => { decode(bytes: Uint8Array): string };
}
const codecs = globalThis as unknown as TextCodecs;
const encoder = new codecs.TextEncoder();
const decoder = new codecs.TextDecoder('utf-8', { fatal: true });

function asBytes(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array && view.constructor === Uint8Array
    ? view
    : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/**
 * The payloads sit where the protocol puts bytes: a call's or notification's arguments and
 * an event payload's fields (TerminalEvent.data). Looking only there keeps encoding a
 * plain JSON.stringify for everything else: a snapshot of thousands of containers is
 * not walked twice.
 */
function withPayloadsReplaced(message: unknown, parts: Uint8Array[]): unknown {
  if (typeof message !== 'object' || message === null) return message;
  const record = message as Record<string, unknown>;
  const replace = (value: unknown): unknown => {
    if (!ArrayBuffer.isView(value)) return value;
    parts.push(asBytes(value));
    return { [marker]: parts.length - 1 };
  };
  const args = record.args;
  if (Array.isArray(args) && args.some((arg) => ArrayBuffer.isView(arg))) {
    return { ...record, args: args.map(replace) };
  }
  const payload = record.payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const fields = payload as Record<string, unknown>;
    if (Object.values(fields).some((field) => ArrayBuffer.isView(field))) {
      const replaced = Object.fromEntries(
        Object.entries(fields).map(([key, field]) => [key, replace(field)]),
      );
      return { ...record, payload: replaced };
    }
  }
  return message;
}

/**
 * The frame for `message`: binary when it carries payloads (see withPayloadsReplaced),
 * JSON text otherwise. Throws (a plain Error) for what JSON can't carry.
 */
export function encodeFrame(message: unknown): Frame {
  const parts: Uint8Array[] = [];
  const text = JSON.stringify(withPayloadsReplaced(message, parts));
  if (text === undefined) throw new Error('The message can not be sent as JSON.');
  if (parts.length === 0) return text;
  const header = encoder.encode(`{"b":[${parts.map((p) => p.byteLength).join(',')}],"m":${text}}`);
  let size = 4 + header.byteLength;
  for (const part of parts) size += part.byteLength;
  const frame = new Uint8Array(size);
  new DataView(frame.buffer).setUint32(0, header.byteLength);
  frame.set(header, 4);
  let offset = 4 + header.byteLength;
  for (const part of parts) {
    frame.set(part, offset);
    offset += part.byteLength;
  }
  return frame;
}

function isIndex(value: unknown, count: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < count;
}

/**
 * The message in `frame`; throws (a plain Error) on anything malformed: bad JSON, a header
 * whose lengths don't add up to the frame, a payload reference out of range.
 */
export function decodeFrame(frame: Frame): unknown {
  if (typeof frame === 'string') return JSON.parse(frame) as unknown;
  if (frame.byteLength < 4) throw new Error('The binary frame is shorter than its header.');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const headerLength = view.getUint32(0);
  if (headerLength > frame.byteLength - 4) throw new Error('The frame header overruns the frame.');
  const header = JSON.parse(decoder.decode(frame.subarray(4, 4 + headerLength))) as unknown;
  if (typeof header !== 'object' || header === null)
    throw new Error('The frame header is not an object.');
  const { b: lengths, m: message } = header as { b?: unknown; m?: unknown };
  if (!Array.isArray(lengths)) throw new Error('The frame header lists no payloads.');
  const parts: Uint8Array[] = [];
  let offset = 4 + headerLength;
  for (const length of lengths as unknown[]) {
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
      throw new Error('A payload length is not a byte count.');
    }
    if (offset + length > frame.byteLength) throw new Error('A payload overruns the frame.');
    parts.push(frame.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== frame.byteLength) throw new Error('The frame has bytes no payload claims.');
  return revive(message, parts);
}

/** Puts the payloads back where withPayloadsReplaced took them from. */
function revive(message: unknown, parts: readonly Uint8Array[]): unknown {
  if (typeof message !== 'object' || message === null) return message;
  const record = message as Record<string, unknown>;
  const back = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, marker)) return value;
    const index = (value as Record<string, unknown>)[marker];
    if (Object.keys(value).length !== 1 || !isIndex(index, parts.length)) {
      throw new Error('A payload reference is malformed.');
    }
    return parts[index];
  };
  if (Array.isArray(record.args)) record.args = (record.args as unknown[]).map(back);
  const payload = record.payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const fields = payload as Record<string, unknown>;
    for (const key of Object.keys(fields)) fields[key] = back(fields[key]);
  }
  return record;
}
