import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { listenToScript, type ScriptReport } from './upload-script';

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
