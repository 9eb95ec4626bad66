import { describe, expect, it } from 'vitest';
import { crictlCommand, crictlRunScript, shellQuote } from './crictl';

const node = { endpoint: 'unix:///run/containerd/containerd.sock' };
const prefix = 'crictl --runtime-endpoint unix:///run/containerd/containerd.sock';

describe('crictlCommand', () => {
  it.each([
    [{ kind: 'stop-container', id: 'abc', timeoutSeconds: 10 } as const, 'stop --timeout 10 abc'],
    [{ kind: 'remove-container', id: 'abc' } as const, 'rm abc'],
    [{ kind: 'inspect-container', id: 'abc' } as const, 'inspect abc'],
    [{ kind: 'logs', id: 'abc' } as const, 'logs --follow abc'],
    [{ kind: 'exec', id: 'abc', command: ['sh'] } as const, 'exec -it abc sh'],
    [
      {
        kind: 'exec-many',
        labels: { app: 'web', tier: 'front' },
        sync: true,
        timeoutSeconds: 10,
        command: ['sh', '-c', 'hostname; cat /etc/hostname'],
      } as const,
      "exec --label app=web --label tier=front --state running --parallel --sync --timeout 10 sh -c 'hostname; cat /etc/hostname'",
    ],
    [
      {
        kind: 'exec-many',
        name: '^web-[0-9]+$',
        sync: false,
        timeoutSeconds: 0,
        command: ['true'],
      } as const,
      "exec --name '^web-[0-9]+$' --state running --parallel true",
    ],
    [
      {
        kind: 'exec-one',
        id: 'abc',
        sync: true,
        timeoutSeconds: 5,
        command: ['cat', 'a b'],
      } as const,
      "exec --sync --timeout 5 abc cat 'a b'",
    ],
    [{ kind: 'stop-pod', id: 'p' } as const, 'stopp p'],
    [{ kind: 'remove-pod', id: 'p' } as const, 'rmp p'],
    [{ kind: 'inspect-pod', id: 'p' } as const, 'inspectp p'],
    [{ kind: 'remove-image', ref: 'sha256:1' } as const, 'rmi sha256:1'],
    [{ kind: 'inspect-image', ref: 'busybox:1' } as const, 'inspecti busybox:1'],
    [{ kind: 'pull-image', ref: 'busybox:1' } as const, 'pull busybox:1'],
    [{ kind: 'list-containers', podSandboxId: 'p' } as const, 'ps --all --pod p'],
    [{ kind: 'list-pods' } as const, 'pods'],
    [{ kind: 'version' } as const, 'version'],
  ])('%o', (action, expected) => {
    expect(crictlCommand(node, action)).toBe(`${prefix} ${expected}`);
  });

  it('never puts a password on the command line', () => {
    expect(crictlCommand(node, { kind: 'pull-image', ref: 'r/app:1', username: 'me' })).toBe(
      `${prefix} pull --username me r/app:1`,
    );
  });

  it('adds the image endpoint to image commands only, and the timeout as a duration', () => {
    const split = { endpoint: 'unix:///a.sock', imageEndpoint: 'unix:///b.sock', timeoutMs: 2500 };
    expect(crictlCommand(split, { kind: 'remove-image', ref: 'x' })).toBe(
      'crictl --runtime-endpoint unix:///a.sock --image-endpoint unix:///b.sock --timeout 3s rmi x',
    );
    expect(crictlCommand(split, { kind: 'remove-pod', id: 'p' })).toBe(
      'crictl --runtime-endpoint unix:///a.sock --timeout 3s rmp p',
    );
  });

  it('clamps the grace period to whole seconds', () => {
    expect(crictlCommand(node, { kind: 'stop-container', id: 'x', timeoutSeconds: 2.6 })).toBe(
      `${prefix} stop --timeout 3 x`,
    );
  });

  it('quotes what the shell would split or expand', () => {
    expect(crictlCommand({ endpoint: 'unix:///tmp/my dir/c.sock' }, { kind: 'version' })).toBe(
      "crictl --runtime-endpoint 'unix:///tmp/my dir/c.sock' version",
    );
  });
});

describe('shellQuote', () => {
  it('leaves safe words alone and quotes the rest', () => {
    expect(shellQuote('sha256:abc')).toBe('sha256:abc');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});

describe('crictlRunScript', () => {
  it('writes the configs, then runp, create and start each container', () => {
    const script = crictlRunScript(node, { metadata: { name: 'p' } }, [
      { metadata: { name: 'c' } },
    ]);
    expect(script).toContain("cat > pod.json <<'PORTHOLE_EOF'");
    expect(script).toContain("cat > container-0.json <<'PORTHOLE_EOF'");
    expect(script).toContain(`POD_ID=$(${prefix} runp pod.json)`);
    expect(script).toContain(`CONTAINER_0=$(${prefix} create "$POD_ID" container-0.json pod.json)`);
    expect(script).toContain(`${prefix} start "$CONTAINER_0"`);
  });
});
