/** A view's choice of streams, as a page sends it, checked and reduced to what a store reads. */
import { AppError } from '../../../../shared/errors';
import type { LogStream } from '../../../../shared/model';

/** Which lines a view shows: both streams, or one. */
export type StreamSelection = 'all' | LogStream;

export function toStreamSelection(streams: readonly LogStream[] | undefined): StreamSelection {
  if (streams === undefined) return 'all';
  if (!Array.isArray(streams) || streams.some((s) => s !== 'stdout' && s !== 'stderr')) {
    throw new AppError({
      code: 'invalid-argument',
      message: 'view.streams must list "stdout", "stderr" or both.',
    });
  }
  const stdout = streams.includes('stdout');
  const stderr = streams.includes('stderr');
  if (stdout && stderr) return 'all';
  if (stdout) return 'stdout';
  if (stderr) return 'stderr';
  throw new AppError({
    code: 'invalid-argument',
    message: 'view.streams must name at least one stream.',
  });
}
