/**
 * SPDY/3 frame codec: the binary layouts of draft-mbelshe-httpbis-spdy-00 (section 2.2 and
 * 2.6), without header compression (compression.ts) and without any session logic.
 *
 * Control frame: C=1 | version(15) | type(16) | flags(8) | length(24) | payload
 * Data frame:    C=0 | stream id(31)           | flags(8) | length(24) | payload
 *
 * The parser is incremental and zero-copy for DATA: payloads are handed out as slices of the
 * socket chunks as they arrive, so a 16 MiB frame is never buffered whole and a slow consumer
 * only ever pins the chunks it has not read yet. Control frames are small and are collected
 * whole, up to a limit; unknown control frame types are skipped without buffering, as the
 * spec asks ("ignore unrecognized control frames").
 */

export const SPDY_VERSION = 3;

/** Control frame types. 5 (NOOP) was removed in SPDY/3; 10 (CREDENTIAL) we ignore. */
export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;
export const FLAG_SETTINGS_CLEAR = 0x01;

/** RST_STREAM status codes (section 2.4.2). */
export const RstStatus = {
  ProtocolError: 1,
  InvalidStream: 2,
  RefusedStream: 3,
  UnsupportedVersion: 4,
  Cancel: 5,
  InternalError: 6,
  FlowControlError: 7,
  StreamInUse: 8,
  StreamAlreadyClosed: 9,
  InvalidCredentials: 10,
  FrameTooLarge: 11,
} as const;

/** GOAWAY status codes (section 2.6.6). */
export const GoAwayStatus = { Ok: 0, ProtocolError: 1, InternalError: 2 } as const;

export const MAX_STREAM_ID = 0x7fffffff;
/** The 24-bit length field. */
export const MAX_FRAME_PAYLOAD = 0xffffff;
export const FRAME_HEADER_LENGTH = 8;

const rstStatusNames: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(RstStatus).map(([name, code]) => [code, name]),
);

/** `CANCEL`, `PROTOCOL_ERROR`… for messages and logs. */
export function rstStatusName(status: number): string {
  const name = rstStatusNames[status];
  return name === undefined
    ? `status ${status}`
    : name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

export interface SynStreamFrame {
  readonly type: 'syn-stream';
  readonly flags: number;
  readonly streamId: number;
  readonly associatedStreamId: number;
  /** 0 (highest) to 7. */
  readonly priority: number;
  readonly slot: number;
  /** Compressed name/value header block. */
  readonly headerBlock: Buffer;
}

export interface SynReplyFrame {
  readonly type: 'syn-reply';
  readonly flags: number;
  readonly streamId: number;
  readonly headerBlock: Buffer;
}

export interface RstStreamFrame {
  readonly type: 'rst-stream';
  readonly streamId: number;
  readonly status: number;
}

export interface SettingsEntry {
  readonly flags: number;
  readonly id: number;
  readonly value: number;
}

export interface SettingsFrame {
  readonly type: 'settings';
  readonly flags: number;
  readonly entries: readonly SettingsEntry[];
}

export interface PingFrame {
  readonly type: 'ping';
  readonly id: number;
}

export interface GoAwayFrame {
  readonly type: 'goaway';
  readonly lastGoodStreamId: number;
  readonly status: number;
}

export interface HeadersFrame {
  readonly type: 'headers';
  readonly flags: number;
  readonly streamId: number;
  readonly headerBlock: Buffer;
}

export interface WindowUpdateFrame {
  readonly type: 'window-update';
  readonly streamId: number;
  readonly delta: number;
}

export type ControlFrame =
  | SynStreamFrame
  | SynReplyFrame
  | RstStreamFrame
  | SettingsFrame
  | PingFrame
  | GoAwayFrame
  | HeadersFrame
  | WindowUpdateFrame;

/** The peer sent bytes that are not valid SPDY/3. The session turns it into 'protocol-error'. */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

// ---- encoding -------------------------------------------------------------------------

function checkStreamId(streamId: number, allowZero = false): void {
  if (!Number.isInteger(streamId) || streamId < (allowZero ? 0 : 1) || streamId > MAX_STREAM_ID) {
    throw new RangeError(`Invalid SPDY stream id ${streamId}`);
  }
}

function checkUint(value: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`Invalid SPDY ${what} ${value}`);
  }
}

function controlFrame(type: number, flags: number, payloadLength: number): Buffer {
  checkUint(flags, 0xff, 'flags');
  checkUint(payloadLength, MAX_FRAME_PAYLOAD, 'frame length');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + payloadLength);
  frame.writeUInt32BE((0x8000 | SPDY_VERSION) * 0x10000 + type, 0);
  frame.writeUInt32BE(flags * 0x1000000 + payloadLength, 4);
  return frame;
}

/** The 8-byte header of a DATA frame; the payload follows on the wire as is. */
export function encodeDataFrameHeader(streamId: number, flags: number, length: number): Buffer {
  checkStreamId(streamId);
  checkUint(flags, 0xff, 'flags');
  checkUint(length, MAX_FRAME_PAYLOAD, 'frame length');
  const header = Buffer.allocUnsafe(FRAME_HEADER_LENGTH);
  header.writeUInt32BE(streamId, 0);
  header.writeUInt32BE(flags * 0x1000000 + length, 4);
  return header;
}

/** A whole DATA frame (copies the payload: for small frames and tests). */
export function encodeDataFrame(streamId: number, flags: number, payload: Uint8Array): Buffer {
  return Buffer.concat([encodeDataFrameHeader(streamId, flags, payload.length), payload]);
}

export function encodeControlFrame(frame: ControlFrame): Buffer {
  switch (frame.type) {
    case 'syn-stream': {
      checkStreamId(frame.streamId);
      checkStreamId(frame.associatedStreamId, true);
      checkUint(frame.priority, 7, 'priority');
      checkUint(frame.slot, 0xff, 'slot');
      const out = controlFrame(FrameType.SynStream, frame.flags, 10 + frame.headerBlock.length);
      out.writeUInt32BE(frame.streamId, 8);
      out.writeUInt32BE(frame.associatedStreamId, 12);
      out[16] = frame.priority << 5;
      out[17] = frame.slot;
      frame.headerBlock.copy(out, 18);
      return out;
    }
    case 'syn-reply':
    case 'headers': {
      checkStreamId(frame.streamId);
      const type = frame.type === 'syn-reply' ? FrameType.SynReply : FrameType.Headers;
      const out = controlFrame(type, frame.flags, 4 + frame.headerBlock.length);
      out.writeUInt32BE(frame.streamId, 8);
      frame.headerBlock.copy(out, 12);
      return out;
    }
    case 'rst-stream': {
      checkStreamId(frame.streamId);
      checkUint(frame.status, 0xffffffff, 'status');
      const out = controlFrame(FrameType.RstStream, 0, 8);
      out.writeUInt32BE(frame.streamId, 8);
      out.writeUInt32BE(frame.status, 12);
      return out;
    }
    case 'settings': {
      const out = controlFrame(FrameType.Settings, frame.flags, 4 + 8 * frame.entries.length);
      out.writeUInt32BE(frame.entries.length, 8);
      frame.entries.forEach((entry, index) => {
        checkUint(entry.flags, 0xff, 'settings flags');
        checkUint(entry.id, 0xffffff, 'settings id');
        checkUint(entry.value, 0xffffffff, 'settings value');
        out.writeUInt32BE(entry.flags * 0x1000000 + entry.id, 12 + 8 * index);
        out.writeUInt32BE(entry.value, 16 + 8 * index);
      });
      return out;
    }
    case 'ping': {
      checkUint(frame.id, 0xffffffff, 'ping id');
      const out = controlFrame(FrameType.Ping, 0, 4);
      out.writeUInt32BE(frame.id, 8);
      return out;
    }
    case 'goaway': {
      checkStreamId(frame.lastGoodStreamId, true);
      checkUint(frame.status, 0xffffffff, 'status');
      const out = controlFrame(FrameType.GoAway, 0, 8);
      out.writeUInt32BE(frame.lastGoodStreamId, 8);
      out.writeUInt32BE(frame.status, 12);
      return out;
    }
    case 'window-update': {
      checkStreamId(frame.streamId, true);
      checkUint(frame.delta, MAX_STREAM_ID, 'window delta');
      const out = controlFrame(FrameType.WindowUpdate, 0, 8);
      out.writeUInt32BE(frame.streamId, 8);
      out.writeUInt32BE(frame.delta, 12);
      return out;
    }
  }
}

// ---- decoding -------------------------------------------------------------------------

function streamIdAt(payload: Buffer, offset: number, frameName: string): number {
  const id = payload.readUInt32BE(offset) & MAX_STREAM_ID;
  if (id === 0) throw new FrameError(`${frameName} frame on stream 0`);
  return id;
}

function expectLength(payload: Buffer, length: number, frameName: string): void {
  if (payload.length !== length) {
    throw new FrameError(`${frameName} frame of ${payload.length} bytes (expected ${length})`);
  }
}

function expectMinLength(payload: Buffer, length: number, frameName: string): void {
  if (payload.length < length) {
    throw new FrameError(`${frameName} frame of ${payload.length} bytes (at least ${length})`);
  }
}

/**
 * Decodes the payload of a known control frame type; undefined for an unknown type.
 * Throws FrameError when the payload does not fit the type.
 */
export function decodeControlFrame(
  type: number,
  flags: number,
  payload: Buffer,
): ControlFrame | undefined {
  switch (type) {
    case FrameType.SynStream:
      expectMinLength(payload, 10, 'SYN_STREAM');
      return {
        type: 'syn-stream',
        flags,
        streamId: streamIdAt(payload, 0, 'SYN_STREAM'),
        associatedStreamId: payload.readUInt32BE(4) & MAX_STREAM_ID,
        priority: (payload[8] ?? 0) >> 5,
        slot: payload[9] ?? 0,
        headerBlock: payload.subarray(10),
      };
    case FrameType.SynReply:
    case FrameType.Headers: {
      // The same layout: a stream id, then the header block.
      const reply = type === FrameType.SynReply;
      const name = reply ? 'SYN_REPLY' : 'HEADERS';
      expectMinLength(payload, 4, name);
      return {
        type: reply ? 'syn-reply' : 'headers',
        flags,
        streamId: streamIdAt(payload, 0, name),
        headerBlock: payload.subarray(4),
      };
    }
    case FrameType.RstStream: {
      expectLength(payload, 8, 'RST_STREAM');
      const status = payload.readUInt32BE(4);
      if (status === 0) throw new FrameError('RST_STREAM with status 0');
      return { type: 'rst-stream', streamId: streamIdAt(payload, 0, 'RST_STREAM'), status };
    }
    case FrameType.Settings: {
      expectMinLength(payload, 4, 'SETTINGS');
      const count = payload.readUInt32BE(0);
      if (payload.length !== 4 + 8 * count) {
        throw new FrameError(`SETTINGS frame of ${payload.length} bytes for ${count} entries`);
      }
      const entries: SettingsEntry[] = [];
      for (let offset = 4; offset < payload.length; offset += 8) {
        const word = payload.readUInt32BE(offset);
        entries.push({
          flags: word >>> 24,
          id: word & 0xffffff,
          value: payload.readUInt32BE(offset + 4),
        });
      }
      return { type: 'settings', flags, entries };
    }
    case FrameType.Ping:
      expectLength(payload, 4, 'PING');
      return { type: 'ping', id: payload.readUInt32BE(0) };
    case FrameType.GoAway:
      expectLength(payload, 8, 'GOAWAY');
      return {
        type: 'goaway',
        lastGoodStreamId: payload.readUInt32BE(0) & MAX_STREAM_ID,
        status: payload.readUInt32BE(4),
      };
    case FrameType.WindowUpdate:
      expectLength(payload, 8, 'WINDOW_UPDATE');
      return {
        type: 'window-update',
        streamId: payload.readUInt32BE(0) & MAX_STREAM_ID,
        delta: payload.readUInt32BE(4) & MAX_STREAM_ID,
      };
    default:
      return undefined;
  }
}

// ---- incremental parser ---------------------------------------------------------------

export interface FrameHandler {
  onControlFrame(frame: ControlFrame): void;
  /**
   * A piece of a DATA frame's payload, as it arrives. `last` marks the frame's final piece;
   * `flags` (FIN) apply to the frame as a whole, so act on them when `last` is true. A
   * zero-length frame comes as one empty, last piece.
   */
  onDataFrame(streamId: number, flags: number, piece: Buffer, last: boolean): void;
  /** An unknown control frame type, already skipped. */
  onUnknownControlFrame?(type: number, flags: number, length: number): void;
}

export interface FrameParserOptions {
  /**
   * Largest known control frame accepted (default 64 KiB). Ours carry a few short headers;
   * the cap keeps a hostile peer from making us buffer 16 MiB per frame.
   */
  readonly maxControlFrameLength?: number;
}

const EMPTY = Buffer.alloc(0);
export const DEFAULT_MAX_CONTROL_FRAME_LENGTH = 64 * 1024;

type ParserState =
  | { readonly kind: 'header' }
  | {
      readonly kind: 'control';
      readonly type: number;
      readonly flags: number;
      readonly length: number;
      readonly parts: Buffer[];
      received: number;
    }
  | { readonly kind: 'skip'; remaining: number }
  | { readonly kind: 'data'; readonly streamId: number; readonly flags: number; remaining: number };

/**
 * Turns a byte stream into frames. `push` bytes as they arrive; frames are delivered to the
 * handler synchronously. The handler may `pause()` the parser (e.g. while a header block is
 * inflated asynchronously): the rest of the bytes is kept, and `resume()` carries on with
 * them. Malformed input throws FrameError from `push`/`resume`, and the parser stays failed.
 */
export class FrameParser {
  private readonly queue: Buffer[] = [];
  private readonly header = Buffer.alloc(FRAME_HEADER_LENGTH);
  private headerLength = 0;
  private state: ParserState = { kind: 'header' };
  private paused = false;
  private running = false;
  private failure: FrameError | undefined;
  private readonly maxControlFrameLength: number;

  constructor(
    private readonly handler: FrameHandler,
    options: FrameParserOptions = {},
  ) {
    this.maxControlFrameLength = options.maxControlFrameLength ?? DEFAULT_MAX_CONTROL_FRAME_LENGTH;
  }

  /** Bytes received but not parsed yet (held while paused). */
  get bufferedLength(): number {
    return this.queue.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  /** True between frames: no partial frame is pending. */
  get atFrameBoundary(): boolean {
    return this.state.kind === 'header' && this.headerLength === 0 && this.queue.length === 0;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  push(chunk: Buffer): void {
    if (this.failure) throw this.failure;
    if (chunk.length > 0) this.queue.push(chunk);
    this.run();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (this.failure) throw this.failure;
    this.paused = false;
    this.run();
  }

  private run(): void {
    // A handler that resumes (or pushes) from inside a callback must not re-enter the loop:
    // the outer loop picks the bytes up.
    if (this.running) return;
    this.running = true;
    try {
      while (!this.paused && this.queue.length > 0) {
        const chunk = this.queue[0];
        if (chunk === undefined) break;
        const used = this.step(chunk);
        if (used >= chunk.length) this.queue.shift();
        else this.queue[0] = chunk.subarray(used);
      }
    } catch (error) {
      // Malformed input, or a handler that threw: either way the position in the byte
      // stream is lost, so every later push fails too. A handler's own error goes up as is.
      this.failure =
        error instanceof FrameError ? error : new FrameError('The frame parser failed earlier');
      this.queue.length = 0;
      throw error;
    } finally {
      this.running = false;
    }
  }

  /** Consumes bytes from the front of `chunk`; returns how many. */
  private step(chunk: Buffer): number {
    const state = this.state;
    switch (state.kind) {
      case 'header': {
        if (this.headerLength === 0 && chunk.length >= FRAME_HEADER_LENGTH) {
          this.startFrame(chunk);
          return FRAME_HEADER_LENGTH;
        }
        const used = Math.min(FRAME_HEADER_LENGTH - this.headerLength, chunk.length);
        chunk.copy(this.header, this.headerLength, 0, used);
        this.headerLength += used;
        if (this.headerLength === FRAME_HEADER_LENGTH) {
          this.headerLength = 0;
          this.startFrame(this.header);
        }
        return used;
      }
      case 'control': {
        const used = Math.min(state.length - state.received, chunk.length);
        state.parts.push(chunk.subarray(0, used));
        state.received += used;
        if (state.received === state.length) {
          const payload =
            state.parts.length === 1 && state.parts[0] !== undefined
              ? state.parts[0]
              : Buffer.concat(state.parts, state.length);
          this.state = { kind: 'header' };
          this.deliverControl(state.type, state.flags, payload);
        }
        return used;
      }
      case 'skip': {
        const used = Math.min(state.remaining, chunk.length);
        state.remaining -= used;
        if (state.remaining === 0) this.state = { kind: 'header' };
        return used;
      }
      case 'data': {
        const used = Math.min(state.remaining, chunk.length);
        state.remaining -= used;
        const last = state.remaining === 0;
        if (last) this.state = { kind: 'header' };
        this.handler.onDataFrame(state.streamId, state.flags, chunk.subarray(0, used), last);
        return used;
      }
    }
  }

  private startFrame(header: Buffer): void {
    const first = header.readUInt32BE(0);
    const second = header.readUInt32BE(4);
    const flags = second >>> 24;
    const length = second & 0xffffff;
    if (first >= 0x80000000) {
      const version = (first >>> 16) & 0x7fff;
      const type = first & 0xffff;
      if (version !== SPDY_VERSION) {
        throw new FrameError(`Control frame of SPDY version ${version} (expected 3)`);
      }
      if (!isKnownType(type)) {
        if (length === 0) this.handler.onUnknownControlFrame?.(type, flags, 0);
        else {
          this.state = { kind: 'skip', remaining: length };
          this.handler.onUnknownControlFrame?.(type, flags, length);
        }
        return;
      }
      if (length > this.maxControlFrameLength) {
        throw new FrameError(
          `Control frame of type ${type} is ${length} bytes (limit ${this.maxControlFrameLength})`,
        );
      }
      if (length === 0) {
        this.deliverControl(type, flags, EMPTY);
        return;
      }
      this.state = { kind: 'control', type, flags, length, parts: [], received: 0 };
      return;
    }
    const streamId = first & MAX_STREAM_ID;
    if (streamId === 0) throw new FrameError('DATA frame on stream 0');
    if (length === 0) {
      this.handler.onDataFrame(streamId, flags, EMPTY, true);
      return;
    }
    this.state = { kind: 'data', streamId, flags, remaining: length };
  }

  private deliverControl(type: number, flags: number, payload: Buffer): void {
    const frame = decodeControlFrame(type, flags, payload);
    if (frame !== undefined) this.handler.onControlFrame(frame);
  }
}

const knownTypes: ReadonlySet<number> = new Set(Object.values(FrameType));

function isKnownType(type: number): boolean {
  return knownTypes.has(type);
}
