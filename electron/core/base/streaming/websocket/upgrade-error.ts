/**
 * WebSocket upgrade failures as the SPDY layer's `UpgradeError` (an AppError with the HTTP
 * `status`, the `body` and the `offered` protocols): one type for "the upgrade failed,
 * nothing was streamed" across transports, so fallback logic tests both the same way.
 */
import type { ErrorCode } from '../../../../../shared/errors';
import { UpgradeError } from '../spdy';

export interface UpgradeFailureExtra {
  readonly status?: number;
  readonly body?: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly cause?: unknown;
}

export function upgradeFailure(
  code: ErrorCode,
  message: string,
  offered: readonly string[],
  extra: UpgradeFailureExtra = {},
): UpgradeError {
  return new UpgradeError(
    {
      code,
      message,
      status: extra.status,
      body: extra.body ?? '',
      offered,
      ...(extra.detail !== undefined && { detail: extra.detail }),
      ...(extra.hint !== undefined && { hint: extra.hint }),
    },
    { cause: extra.cause },
  );
}

/** Maps a non-101 answer to the upgrade request, with the server's own words as detail. */
export function upgradeRefused(
  status: number,
  body: string,
  offered: readonly string[],
): UpgradeError {
  const text = body.trim();
  const extra = { status, body: text, detail: `HTTP ${status}${text !== '' ? `: ${text}` : ''}` };
  switch (status) {
    case 404:
      return upgradeFailure(
        'not-found',
        'The stream URL has expired or was already used.',
        offered,
        {
          ...extra,
          hint: 'Stream URLs are single use and valid for one minute: start the session again to get a new one.',
        },
      );
    case 403:
      return upgradeFailure(
        'failed-precondition',
        `The runtime supports none of the offered WebSocket protocols (${offered.join(', ')}).`,
        offered,
        extra,
      );
    case 401:
      return upgradeFailure(
        'unauthenticated',
        'The runtime refused the stream: not authenticated.',
        offered,
        extra,
      );
    default:
      return upgradeFailure(
        status >= 500 ? 'unavailable' : 'failed-precondition',
        `The runtime's stream server answered HTTP ${status} instead of switching to WebSocket.`,
        offered,
        extra,
      );
  }
}
