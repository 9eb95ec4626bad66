import { describe, expect, it } from 'vitest';
import {
  emptyForm,
  exposesBeyondLoopback,
  hasErrors,
  optionsOf,
  specOf,
  validateForm,
  type ForwardForm,
} from './forward-form';

const target = { kind: 'pod', namespace: 'demo', name: 'web' } as const;

function form(change: Partial<ForwardForm>): ForwardForm {
  return { ...emptyForm, ...change };
}

describe('the forward form', () => {
  it('builds a loopback spec with automatic local ports by default', () => {
    const filled = form({ ports: [{ remote: ' 8080 ', local: '' }] });
    expect(hasErrors(validateForm(filled))).toBe(false);
    expect(specOf(filled, target)).toEqual({ target, ports: [{ remotePort: 8080, localPort: 0 }] });
    expect(optionsOf(filled)).toEqual({ save: false, autoStart: false });
    expect(exposesBeyondLoopback(filled)).toBe(false);
  });

  it('says what is wrong with each port row', () => {
    const errors = validateForm(
      form({
        ports: [
          { remote: '', local: '' },
          { remote: '70000', local: '' },
          { remote: '80', local: 'http' },
          { remote: '81', local: '9000' },
          { remote: '82', local: '9000' },
        ],
      }),
    );
    expect(errors.ports).toEqual([
      'Enter the pod port.',
      'A pod port is a number from 1 to 65535.',
      'A local port is a number from 1 to 65535, or empty for a free one.',
      undefined,
      'Local port 9000 is used by port 4 too.',
    ]);
  });

  it('asks for a real address and warns for anything beyond loopback', () => {
    const ports = [{ remote: '80', local: '8080' }];
    expect(validateForm(form({ ports, address: 'custom', customAddress: 'laptop' })).address).toBe(
      '"laptop" is not an IP address (e.g. 192.168.1.10).',
    );
    expect(exposesBeyondLoopback(form({ ports, address: 'all' }))).toBe(true);
    // What the user confirmed in the dialog, the core is told.
    expect(optionsOf(form({ ports, address: 'all' }))).toMatchObject({
      exposeBeyondLoopback: true,
    });
    expect(
      exposesBeyondLoopback(form({ ports, address: 'custom', customAddress: '127.0.0.2' })),
    ).toBe(false);
    expect(
      exposesBeyondLoopback(form({ ports, address: 'custom', customAddress: '10.0.0.5' })),
    ).toBe(true);
    expect(specOf(form({ ports, address: 'all', transport: 'websocket' }), target)).toEqual({
      target,
      ports: [{ remotePort: 80, localPort: 8080 }],
      addresses: ['0.0.0.0'],
      transport: 'websocket',
    });
  });

  it('auto-starts only what it saves, and names it only when given a name', () => {
    expect(optionsOf(form({ autoStart: true }))).toEqual({ save: false, autoStart: false });
    expect(optionsOf(form({ save: true, autoStart: true, name: '  api ' }))).toEqual({
      name: 'api',
      save: true,
      autoStart: true,
    });
  });
});
