/** The logs service's arguments as a page sends them, checked. */
import { AppError } from '../../../../shared/errors';
import type { LogOpenRequest, LogView, MergedLogOpenRequest } from '../../../../shared/model';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import type { MergedSelection } from './merged-log';
import { toStreamSelection } from './selection';

/** At most this many containers' logs merge into one. */
export const maxMergedSources = 32;

function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    throw new AppError({ code: 'invalid-argument', message: `${name} must be true or false.` });
  }
  return value;
}

/** What a single and a merged open share: how each log is read. */
function toReadOptions(request: Readonly<Record<string, unknown>>) {
  const previous = optionalBoolean(request.previous, 'previous');
  const follow = optionalBoolean(request.follow, 'follow') ?? false;
  const tailLines =
    request.tailLines === undefined
      ? undefined
      : requireNonNegativeInteger(request.tailLines, 'tailLines');
  let since: number | undefined;
  if (request.since !== undefined) {
    if (typeof request.since !== 'number' || !Number.isFinite(request.since)) {
      throw new AppError({
        code: 'invalid-argument',
        message: 'since must be a time (epoch milliseconds).',
      });
    }
    since = request.since;
  }
  return {
    follow,
    ...(previous !== undefined && { previous }),
    ...(tailLines !== undefined && { tailLines }),
    ...(since !== undefined && { since }),
  };
}

export function toOpenRequest(value: unknown): LogOpenRequest {
  const request = requireObject(value, 'request');
  return {
    nodeId: requireString(request.nodeId, 'nodeId'),
    containerId: requireString(request.containerId, 'containerId'),
    ...toReadOptions(request),
  };
}

export function toMergedOpenRequest(value: unknown): {
  readonly targets: MergedLogOpenRequest['targets'];
  readonly options: ReturnType<typeof toReadOptions>;
} {
  const request = requireObject(value, 'request');
  const targets = request.targets;
  if (!Array.isArray(targets) || targets.length === 0 || targets.length > maxMergedSources) {
    throw new AppError({
      code: 'invalid-argument',
      message: `targets must list 1 to ${maxMergedSources} containers.`,
    });
  }
  const checked = targets.map((target: unknown) => {
    const item = requireObject(target, 'target');
    return {
      nodeId: requireString(item.nodeId, 'nodeId'),
      containerId: requireString(item.containerId, 'containerId'),
    };
  });
  return { targets: checked, options: toReadOptions(request) };
}

export function toView(value: unknown): LogView {
  if (value === undefined) return {};
  const view = requireObject(value, 'view');
  const field = view.field === undefined ? undefined : requireObject(view.field, 'view.field');
  return {
    ...(view.streams !== undefined && { streams: view.streams as LogView['streams'] }),
    ...(view.sources !== undefined && { sources: view.sources as LogView['sources'] }),
    ...(field !== undefined && {
      field: {
        key: requireString(field.key, 'view.field.key'),
        value: typeof field.value === 'string' ? field.value : '',
      },
    }),
  };
}

/** A merged log's view: its streams, and which of its `count` sources. */
export function toMergedSelection(view: LogView, count: number): MergedSelection {
  const streams = toStreamSelection(view.streams);
  if (view.sources === undefined) return { streams, sources: undefined };
  if (
    !Array.isArray(view.sources) ||
    view.sources.some((source) => !Number.isInteger(source) || source < 0 || source >= count)
  ) {
    throw new AppError({
      code: 'invalid-argument',
      message: `view.sources must list positions of the log's sources (0 to ${count - 1}).`,
    });
  }
  return { streams, sources: new Set(view.sources) };
}
