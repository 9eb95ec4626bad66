/**
 * The debug service's arguments as they arrive from a page: checked before anything
 * reaches a node, each failure an `invalid-argument` that names the field.
 */
import { AppError } from '../../../../shared/errors';
import type { DebugStartRequest } from '../../../../shared/model';
import { requireObject, requireString } from '../../base/args';

/** An image reference: registry/path:tag@digest, no spaces (docker's grammar is stricter). */
const imagePattern = /^[\w][\w.:/@+-]*$/;

export function parseStartRequest(value: unknown): DebugStartRequest {
  const request = requireObject(value, 'request');
  const image =
    request.image === undefined ? undefined : requireString(request.image, 'image', 512).trim();
  if (image !== undefined && !imagePattern.test(image)) {
    throw new AppError({
      code: 'invalid-argument',
      message: 'image must be an image reference, e.g. docker.io/library/busybox:1.36.',
    });
  }
  if (request.keep !== undefined && typeof request.keep !== 'boolean') {
    throw new AppError({ code: 'invalid-argument', message: 'keep must be true or false.' });
  }
  return {
    nodeId: requireString(request.nodeId, 'nodeId'),
    targetId: requireString(request.targetId, 'targetId', 256),
    ...(image !== undefined && { image }),
    ...(request.keep !== undefined && { keep: request.keep }),
  };
}

export function requireBoolean(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') {
    throw new AppError({ code: 'invalid-argument', message: `${name} must be true or false.` });
  }
  return value;
}
