import { describe, expect, it } from 'vitest';
import { uploadFiles } from './upload-files';

const request = (...paths: string[]) => ({
  nodeId: 'n',
  containerId: 'c',
  directory: '/tmp',
  files: paths.map((path) => ({ path, size: 10 })),
});

/** The AppError a refusal throws, for `toThrow`. */
function refused(code: string, message: string | RegExp): unknown {
  const text: unknown = typeof message === 'string' ? message : expect.stringMatching(message);
  return expect.objectContaining({ code, message: text });
}

describe('uploadFiles', () => {
  it('takes relative paths, odd names included', () => {
    const files = uploadFiles(request('a.txt', 'dir/b c', 'dir/sub/\n-n'), 1000);
    expect(files.map((file) => file.path)).toEqual(['a.txt', 'dir/b c', 'dir/sub/\n-n']);
  });

  it.each(['', '/etc/passwd', '../up', 'a/../b', 'a//b', './a', 'a/', 'nul\0'])(
    'refuses the path %j',
    (path) => {
      expect(() => uploadFiles(request('ok', path), 1000)).toThrow(
        refused('invalid-argument', /^files\[1\]\.path must be a relative path/),
      );
    },
  );

  it('refuses a path named twice, which tar would keep once', () => {
    expect(() => uploadFiles(request('a', 'dir/x', 'dir/x'), 1000)).toThrow(
      refused(
        'invalid-argument',
        '"dir/x" is in this upload twice (files[1] and files[2]): each path can be uploaded once.',
      ),
    );
  });

  it('refuses a path that is a file and the folder of another, in either order', () => {
    expect(() => uploadFiles(request('dir', 'dir/x'), 1000)).toThrow(
      refused(
        'invalid-argument',
        '"dir" is a file in this upload (files[0]) and the folder of files[1]: it can\'t be both.',
      ),
    );
    expect(() => uploadFiles(request('dir/x/y', 'dir/x'), 1000)).toThrow(
      refused(
        'invalid-argument',
        '"dir/x" is a file in this upload (files[1]) and the folder of files[0]: it can\'t be both.',
      ),
    );
  });

  it('refuses more bytes than one transfer may move', () => {
    expect(() => uploadFiles(request('a', 'b', 'c'), 25)).toThrow(
      refused('resource-exhausted', /^3 files is larger than/),
    );
  });
});
