import { describe, expect, it } from 'vitest';
import type { ForwardSpec } from '../../../../shared/model';
import { validateSpec } from './spec';

const target = { kind: 'pod', namespace: 'ns', name: 'web' } as const;

describe('validateSpec', () => {
  it('accepts a usual spec', () => {
    expect(() =>
      validateSpec({
        target,
        ports: [
          { localPort: 0, remotePort: 80 },
          { localPort: 8080, remotePort: 8080 },
        ],
      }),
    ).not.toThrow();
  });

  it.each<[string, ForwardSpec, string]>([
    ['no ports', { target, ports: [] }, 'A forward needs at least one port.'],
    [
      'pod port 0',
      { target, ports: [{ localPort: 0, remotePort: 0 }] },
      '0 is not a valid pod port.',
    ],
    [
      'local port too big',
      { target, ports: [{ localPort: 65536, remotePort: 1 }] },
      '65536 is not a valid local port.',
    ],
    [
      'a local port twice',
      {
        target,
        ports: [
          { localPort: 9000, remotePort: 1 },
          { localPort: 9000, remotePort: 2 },
        ],
      },
      'Local port 9000 is given twice.',
    ],
    [
      'empty name',
      { target: { ...target, name: '' }, ports: [{ localPort: 0, remotePort: 1 }] },
      'A pod target needs a namespace and a name.',
    ],
    [
      'empty address',
      { target, ports: [{ localPort: 0, remotePort: 1 }], addresses: [' '] },
      'A listen address is empty.',
    ],
  ])('rejects %s', (_name, spec, message) => {
    expect(() => validateSpec(spec)).toThrow(
      expect.objectContaining({ code: 'invalid-argument', message }),
    );
  });
});
