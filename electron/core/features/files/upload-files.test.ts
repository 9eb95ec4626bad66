import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { uploadFiles } from './upload-files';

const request = (...paths: string[]) => ({
  nodeId: 'n',
  containerId: 'c',
  directory: '/tmp',
  files: paths.map((path) => ({ path, size: 10 })),
});

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('uploadFiles', () => {
  it('takes relative paths, odd names included', () => {
    const files = uploadFiles(request('a.txt', 'dir/b c', 'dir/sub/\n-n'), 1000);
    expect(files.map((file) => file.path)).toEqual(['a.txt', 'dir/b c', 'dir/sub/\n-n']);
  });

  it.each(['', '/etc/passwd', '../up', 'a/../b', 'a//b', './a', 'a/', 'nul\0'])(
    'refuses the path %j',
    (path) => {
      const error = refusal(() => uploadFiles(request('ok', path), 1000));
      expect(error.code).toBe('invalid-argument');
      expect(error.message).toContain('files[1].path');
    },
  );

  it('refuses a path named twice, which tar would keep once', () => {
    const error = refusal(() => uploadFiles(request('a', 'dir/x', 'dir/x'), 1000));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toBe(
      '"dir/x" is in this upload twice (files[1] and files[2]): each path can be uploaded once.',
    );
  });

  it('refuses a path that is a file and the folder of another, in either order', () => {
    for (const paths of [
      ['dir', 'dir/x'],
      ['dir/x/y', 'dir/x'],
    ]) {
      const error = refusal(() => uploadFiles(request(...paths), 1000));
      expect(error.code).toBe('invalid-argument');
      expect(error.message).toMatch(/^"dir(\/x)?" is a file in this upload .* it can't be both\.$/);
    }
  });

  it('refuses more bytes than one transfer may move', () => {
    const error = refusal(() => uploadFiles(request('a', 'b', 'c'), 25));
    expect(error.code).toBe('resource-exhausted');
    expect(error.message).toContain('3 files');
  });
});
