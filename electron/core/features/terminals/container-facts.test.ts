import { describe, expect, it } from 'vitest';
import type { ContainerDetail } from '../../../../shared/model';
import { attachSettings } from './container-facts';
import { fakeContainerDetail } from './testing/fake-remote-command';

function detail(info: Record<string, unknown>, tty?: boolean): ContainerDetail {
  return fakeContainerDetail('c1', { info: { info }, ...(tty !== undefined && { tty }) });
}

describe('attachSettings', () => {
  it("takes containerd's CRI config, whose false fields are left out", () => {
    expect(attachSettings(detail({ config: { tty: true, stdin: true } }, true))).toEqual({
      tty: true,
      stdin: true,
      known: true,
    });
    expect(attachSettings(detail({ config: { stdin: true } }, false))).toEqual({
      tty: false,
      stdin: true,
      known: true,
    });
  });

  it("takes CRI-O's stdin annotation beside its OCI spec's terminal", () => {
    const crio = (stdin: string, tty: boolean) =>
      detail(
        {
          runtimeSpec: {
            process: { terminal: tty },
            annotations: {
              'io.kubernetes.cri-o.Stdin': stdin,
              'io.kubernetes.cri-o.TTY': String(tty),
            },
          },
        },
        tty,
      );
    expect(attachSettings(crio('true', false))).toEqual({ tty: false, stdin: true, known: true });
    expect(attachSettings(crio('false', true))).toEqual({ tty: true, stdin: false, known: true });
  });

  it('takes a tty to come with stdin when nothing says, and only listens knowing nothing', () => {
    expect(attachSettings(detail({ runtimeSpec: { process: {} } }, true))).toEqual({
      tty: true,
      stdin: true,
      known: true,
    });
    expect(attachSettings(detail({}))).toEqual({ tty: false, stdin: false, known: false });
  });
});
