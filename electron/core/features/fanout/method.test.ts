import { describe, expect, it } from 'vitest';
import { chooseMethod } from './method';

describe('chooseMethod', () => {
  it('takes ExecSync for a short command and streaming for a long one, saying why', () => {
    expect(chooseMethod('auto', 10)).toMatchObject({ method: 'exec-sync' });
    expect(chooseMethod('auto', 10).reason).toMatch(/short command \(timeout 10 s, at most 30 s\)/);
    expect(chooseMethod('auto', 30).method).toBe('exec-sync');
    expect(chooseMethod('auto', 31)).toMatchObject({ method: 'stream' });
    expect(chooseMethod('auto', 0).reason).toMatch(/^Streaming exec: no timeout/);
  });

  it('keeps what the user chose', () => {
    expect(chooseMethod('sync', 0)).toMatchObject({ method: 'exec-sync' });
    expect(chooseMethod('stream', 5)).toMatchObject({ method: 'stream' });
    expect(chooseMethod('stream', 5).reason).toMatch(/after 5 s/);
  });
});
