import { describe, expect, it } from 'vitest';
import {
  FLAG_FIN,
  FLAG_UNIDIRECTIONAL,
  FrameError,
  FrameParser,
  GoAwayStatus,
  MAX_FRAME_PAYLOAD,
  MAX_STREAM_ID,
  RstStatus,
  decodeControlFrame,
  encodeControlFrame,
  encodeDataFrame,
  encodeDataFrameHeader,
  rstStatusName,
  type ControlFrame,
} from './frames';

type Parsed =
  | { kind: 'control'; frame: ControlFrame }
  | { kind: 'data'; streamId: number; flags: number; payload: Buffer }
  | { kind: 'unknown'; type: number; flags: number; length: number };

/** Parses `bytes` fed in chunks of `chunkSize`, joining DATA pieces back into frames. */
function parseAll(bytes: Buffer, chunkSize = bytes.length || 1): Parsed[] {
  const out: Parsed[] = [];
  let pieces: Buffer[] = [];
  const parser = new FrameParser({
    onControlFrame: (frame) => out.push({ kind: 'control', frame }),
    onDataFrame: (streamId, flags, piece, last) => {
      pieces.push(piece);
      if (last) {
        out.push({ kind: 'data', streamId, flags, payload: Buffer.concat(pieces) });
        pieces = [];
      }
    },
    onUnknownControlFrame: (type, flags, length) =>
      out.push({ kind: 'unknown', type, flags, length }),
  });
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    parser.push(bytes.subarray(offset, offset + chunkSize));
  }
  expect(parser.atFrameBoundary).toBe(true);
  return out;
}

const everyControlFrame: ControlFrame[] = [
  {
    type: 'syn-stream',
    flags: FLAG_FIN | FLAG_UNIDIRECTIONAL,
    streamId: MAX_STREAM_ID,
    associatedStreamId: 2,
    priority: 7,
    slot: 255,
    headerBlock: Buffer.from('compressed headers'),
  },
  {
    type: 'syn-stream',
    flags: 0,
    streamId: 1,
    associatedStreamId: 0,
    priority: 0,
    slot: 0,
    headerBlock: Buffer.alloc(0),
  },
  { type: 'syn-reply', flags: FLAG_FIN, streamId: 3, headerBlock: Buffer.from([1, 2, 3]) },
  { type: 'syn-reply', flags: 0, streamId: 5, headerBlock: Buffer.alloc(0) },
  { type: 'rst-stream', streamId: 7, status: RstStatus.Cancel },
  { type: 'rst-stream', streamId: MAX_STREAM_ID, status: RstStatus.FrameTooLarge },
  { type: 'settings', flags: 1, entries: [] },
  {
    type: 'settings',
    flags: 0,
    entries: [
      { flags: 1, id: 7, value: 65536 },
      { flags: 2, id: 0xffffff, value: 0xffffffff },
    ],
  },
  { type: 'ping', id: 1 },
  { type: 'ping', id: 0xffffffff },
  { type: 'goaway', lastGoodStreamId: 0, status: GoAwayStatus.Ok },
  { type: 'goaway', lastGoodStreamId: 9, status: GoAwayStatus.InternalError },
  { type: 'headers', flags: FLAG_FIN, streamId: 11, headerBlock: Buffer.from('h') },
  { type: 'window-update', streamId: 0, delta: MAX_STREAM_ID },
  { type: 'window-update', streamId: 13, delta: 1 },
];

describe('SPDY/3 frame codec', () => {
  it('round-trips every control frame type, flags included', () => {
    for (const frame of everyControlFrame) {
      expect(parseAll(encodeControlFrame(frame))).toEqual([{ kind: 'control', frame }]);
    }
  });

  it('writes the control frame header as the spec lays it out', () => {
    const ping = encodeControlFrame({ type: 'ping', id: 0x01020304 });
    expect(ping.toString('hex')).toBe('80030006' + '00000004' + '01020304');
    const rst = encodeControlFrame({ type: 'rst-stream', streamId: 1, status: RstStatus.Cancel });
    expect(rst.toString('hex')).toBe('80030003' + '00000008' + '00000001' + '00000005');
    const syn = encodeControlFrame({
      type: 'syn-stream',
      flags: FLAG_FIN,
      streamId: 3,
      associatedStreamId: 0,
      priority: 2,
      slot: 0,
      headerBlock: Buffer.from([0xaa]),
    });
    expect(syn.toString('hex')).toBe(
      '80030001' + '0100000b' + '00000003' + '00000000' + '4000' + 'aa',
    );
  });

  it('decodes the SYN_STREAM and SYN_REPLY frames of another SPDY/3 implementation', () => {
    // Frames from spdy-transport's parser tests (compressed by a different stack).
    const synStream = Buffer.from(
      '800300010000002c0000000100000000000078f9e3c6a7c202e50e507ab442a45a77d7105006b32a4804974d8cfa00000000ffff',
      'hex',
    );
    const [parsed] = parseAll(synStream);
    expect(parsed).toMatchObject({
      kind: 'control',
      frame: { type: 'syn-stream', streamId: 1, flags: 0, associatedStreamId: 0 },
    });
    const synReply = Buffer.from('80030002000000140000000178f9e3c6a7c202a6230600000000ffff', 'hex');
    expect(parseAll(synReply)).toMatchObject([
      { kind: 'control', frame: { type: 'syn-reply', streamId: 1, flags: 0 } },
    ]);
  });

  it('round-trips DATA frames: empty, FIN, and the largest length', () => {
    const empty = encodeDataFrame(1, FLAG_FIN, Buffer.alloc(0));
    expect(empty.toString('hex')).toBe('00000001' + '01000000');
    const small = encodeDataFrame(MAX_STREAM_ID, 0, Buffer.from('Writing to stream'));
    expect(small.toString('hex')).toBe(
      '7fffffff' + '00000011' + Buffer.from('Writing to stream').toString('hex'),
    );
    const big = Buffer.alloc(MAX_FRAME_PAYLOAD, 7);
    const frames = Buffer.concat([empty, small, encodeDataFrame(3, FLAG_FIN, big)]);
    const parsed = parseAll(frames, 65536);
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toEqual({
      kind: 'data',
      streamId: 1,
      flags: FLAG_FIN,
      payload: Buffer.alloc(0),
    });
    expect(parsed[1]).toMatchObject({ kind: 'data', streamId: MAX_STREAM_ID, flags: 0 });
    const last = parsed[2];
    expect(last?.kind === 'data' && last.payload.equals(big)).toBe(true);
    expect(() => encodeDataFrameHeader(1, 0, MAX_FRAME_PAYLOAD + 1)).toThrow(RangeError);
    expect(() => encodeDataFrameHeader(0, 0, 1)).toThrow(RangeError);
    expect(() => encodeDataFrameHeader(MAX_STREAM_ID + 1, 0, 1)).toThrow(RangeError);
  });

  it('hands DATA payloads out in pieces as they arrive, without waiting for the whole frame', () => {
    const pieces: number[] = [];
    const parser = new FrameParser({
      onControlFrame: () => undefined,
      onDataFrame: (_id, _flags, piece) => pieces.push(piece.length),
    });
    const frame = encodeDataFrame(1, 0, Buffer.alloc(100_000));
    parser.push(frame.subarray(0, 1008));
    expect(pieces).toEqual([1000]);
    parser.push(frame.subarray(1008));
    expect(pieces).toEqual([1000, 99_000]);
  });

  it('parses the same frames whatever the chunking, down to one byte at a time', () => {
    const bytes = Buffer.concat([
      ...everyControlFrame.map((frame) => encodeControlFrame(frame)),
      encodeDataFrame(1, 0, Buffer.from('hello')),
      encodeDataFrame(1, FLAG_FIN, Buffer.alloc(0)),
    ]);
    const whole = parseAll(bytes);
    expect(whole).toHaveLength(everyControlFrame.length + 2);
    for (const size of [1, 2, 3, 7, 8, 9, 17]) expect(parseAll(bytes, size)).toEqual(whole);
  });

  it('skips unknown control frame types, however long, as the spec says', () => {
    const unknown = Buffer.alloc(8 + 70_000, 0xee);
    unknown.writeUInt32BE(0x8003000a, 0); // CREDENTIAL (10): not supported, ignored
    unknown.writeUInt32BE(0x00000000 + 70_000, 4);
    const empty = Buffer.from('8003007700000000', 'hex');
    const ping = encodeControlFrame({ type: 'ping', id: 3 });
    expect(parseAll(Buffer.concat([unknown, empty, ping]), 4096)).toEqual([
      { kind: 'unknown', type: 10, flags: 0, length: 70_000 },
      { kind: 'unknown', type: 0x77, flags: 0, length: 0 },
      { kind: 'control', frame: { type: 'ping', id: 3 } },
    ]);
  });

  it('rejects malformed frames with FrameError and stays failed', () => {
    const bad: [string, string][] = [
      ['80020006' + '00000004' + '00000001', 'version 2'],
      ['00000000' + '00000001' + 'ff', 'DATA frame on stream 0'],
      ['80030003' + '00000004' + '00000001', 'RST_STREAM frame of 4 bytes'],
      ['80030003' + '00000008' + '00000001' + '00000000', 'status 0'],
      ['80030003' + '00000008' + '00000000' + '00000005', 'stream 0'],
      ['80030006' + '00000008' + '0000000100000001', 'PING frame of 8 bytes'],
      ['80030007' + '00000004' + '00000001', 'GOAWAY frame of 4 bytes'],
      ['80030004' + '00000008' + '00000002' + '00000000', 'SETTINGS frame of 8 bytes for 2'],
      ['80030001' + '00000008' + '0000000100000000', 'SYN_STREAM frame of 8 bytes'],
      ['80030002' + '00000004' + '00000000', 'SYN_REPLY frame on stream 0'],
      ['80030009' + '00000004' + '00000001', 'WINDOW_UPDATE frame of 4 bytes'],
    ];
    for (const [hex, message] of bad) {
      const parser = new FrameParser({
        onControlFrame: () => undefined,
        onDataFrame: () => undefined,
      });
      expect(() => parser.push(Buffer.from(hex, 'hex')), hex).toThrow(message);
      expect(() => parser.push(Buffer.from('00', 'hex'))).toThrow(FrameError);
    }
  });

  it('refuses known control frames over the size limit before buffering them', () => {
    const parser = new FrameParser(
      { onControlFrame: () => undefined, onDataFrame: () => undefined },
      { maxControlFrameLength: 1024 },
    );
    expect(() => parser.push(Buffer.from('80030001' + '00000401', 'hex'))).toThrow(/1025 bytes/);
  });

  it('pauses between frames and resumes with the bytes it kept', () => {
    const seen: string[] = [];
    const parser: FrameParser = new FrameParser({
      onControlFrame: (frame) => {
        seen.push(frame.type);
        if (frame.type === 'syn-reply') parser.pause();
      },
      onDataFrame: (streamId) => seen.push(`data ${streamId}`),
    });
    parser.push(
      Buffer.concat([
        encodeControlFrame({
          type: 'syn-reply',
          flags: 0,
          streamId: 1,
          headerBlock: Buffer.alloc(4),
        }),
        encodeDataFrame(1, 0, Buffer.from('x')),
        encodeControlFrame({ type: 'ping', id: 1 }),
      ]),
    );
    expect(seen).toEqual(['syn-reply']);
    expect(parser.bufferedLength).toBe(9 + 12);
    parser.push(encodeControlFrame({ type: 'ping', id: 3 }));
    expect(seen).toEqual(['syn-reply']);
    parser.resume();
    expect(seen).toEqual(['syn-reply', 'data 1', 'ping', 'ping']);
  });

  it('decodes payloads directly and names RST statuses', () => {
    expect(decodeControlFrame(0x55, 0, Buffer.alloc(0))).toBeUndefined();
    expect(rstStatusName(RstStatus.Cancel)).toBe('CANCEL');
    expect(rstStatusName(RstStatus.ProtocolError)).toBe('PROTOCOL_ERROR');
    expect(rstStatusName(99)).toBe('status 99');
  });

  it('refuses to encode out-of-range fields', () => {
    expect(() => encodeControlFrame({ type: 'ping', id: -1 })).toThrow(RangeError);
    expect(() =>
      encodeControlFrame({ type: 'rst-stream', streamId: 0, status: RstStatus.Cancel }),
    ).toThrow(RangeError);
    expect(() =>
      encodeControlFrame({
        type: 'syn-stream',
        flags: 0,
        streamId: 1,
        associatedStreamId: 0,
        priority: 8,
        slot: 0,
        headerBlock: Buffer.alloc(0),
      }),
    ).toThrow(RangeError);
  });
});
