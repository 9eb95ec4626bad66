/**
 * The Kubernetes WebSocket channel protocol (`*.channel.k8s.io`), as pure functions:
 * one WebSocket message = one channel byte + payload. Binary variants send binary frames
 * with the raw channel byte; base64 variants send text frames with the ASCII digit
 * `'0' + channel` followed by padded base64 of the payload (each message on its own).
 */
import { AppError } from '../../../../../shared/errors';

/** Channel numbers shared by exec and attach. */
export const Channel = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  error: 3,
  resize: 4,
} as const;

/** The v5 CLOSE signal is a message on this reserved "channel", followed by the channel to close. */
export const CLOSE_SIGNAL = 0xff;

/**
 * The server drops connections carrying a message above 32 MiB; keep our messages well
 * below that so a large write never kills a session (we also keep latency low).
 */
export const MAX_MESSAGE_PAYLOAD = 1024 * 1024;

export interface ChannelEncoding {
  /** True for the `*.base64.channel.k8s.io` variants. */
  readonly base64: boolean;
}

/** True when the negotiated subprotocol is one of the base64 text variants. */
export function isBase64Protocol(protocol: string): boolean {
  return protocol.includes('base64.channel.k8s.io');
}

/** One decoded message, or `undefined` for an empty keep-alive style message. */
export interface ChannelMessage {
  readonly channel: number;
  readonly payload: Buffer;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function malformed(message: string, detail?: string): AppError {
  return new AppError({
    code: 'protocol-error',
    message: `The stream server sent a malformed WebSocket message: ${message}`,
    ...(detail !== undefined && { detail }),
  });
}

/** Decodes one received message; throws a `protocol-error` AppError for malformed input. */
export function decodeMessage(
  data: Buffer,
  isBinaryFrame: boolean,
  encoding: ChannelEncoding,
): ChannelMessage {
  if (data.length === 0) throw malformed('an empty message has no channel byte');
  if (!encoding.base64) {
    if (!isBinaryFrame) throw malformed('a text frame on a binary channel protocol');
    return { channel: data[0] ?? 0, payload: data.subarray(1) };
  }
  if (isBinaryFrame) throw malformed('a binary frame on a base64 channel protocol');
  const digit = (data[0] ?? 0) - 0x30;
  if (digit < 0 || digit > 9) {
    throw malformed('the channel is not an ASCII digit', `first byte 0x${data[0]?.toString(16)}`);
  }
  const text = data.subarray(1).toString('latin1');
  if (!BASE64.test(text)) throw malformed('the payload is not valid base64');
  return { channel: digit, payload: Buffer.from(text, 'base64') };
}

/** Encodes a payload for a channel: a Buffer (binary frame) or a string (text frame). */
export function encodeMessage(
  channel: number,
  payload: Uint8Array,
  encoding: ChannelEncoding,
): Buffer | string {
  if (encoding.base64) {
    return String.fromCharCode(0x30 + channel) + Buffer.from(payload).toString('base64');
  }
  const message = Buffer.allocUnsafe(payload.length + 1);
  message[0] = channel;
  message.set(payload, 1);
  return message;
}

/**
 * The v5 CLOSE message for a channel (binary only: v5 has no base64 variant, and the
 * base64 variants are all pre-v5, where CLOSE does not exist).
 */
export function encodeClose(channel: number): Buffer {
  return Buffer.from([CLOSE_SIGNAL, channel]);
}
