import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { listenToScript, sumsText, type ScriptReport } from './upload-script';

describe('listenToScript', () => {
  it('hears each line the upload script says, also split across chunks, and nothing else', async () => {
    const stdout = new PassThrough();
    const heard: ScriptReport[] = [];
    listenToScript(stdout, (report) => heard.push(report));
    stdout.write('unpa');
    stdout.write('cked\nsomething else\nche');
    stdout.end('cked\nfailed 4\n');
    await once(stdout, 'end');
    expect(heard).toEqual([{ said: 'unpacked' }, { said: 'checked' }, { said: 'failed', code: 4 }]);
  });
});

describe('sumsText', () => {
  it('writes each name as printf format text: nothing read or printf could change', () => {
    expect(sumsText(['a/b.txt', 'x y', '-%\\\n', 'é'], ['1', '2', '3', '4'])).toBe(
      '1 a/b.txt\n2 x\\040y\n3 \\055\\045\\134\\012\n4 \\303\\251\n',
    );
  });
});
