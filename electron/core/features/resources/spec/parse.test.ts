import { describe, expect, it } from 'vitest';
import { parseRunSpec } from './parse';

function problems(text: string) {
  const result = parseRunSpec(text);
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

function plan(text: string) {
  const result = parseRunSpec(text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.plan;
}

describe('parseRunSpec', () => {
  it('accepts YAML with camelCase keys and fills in what the kubelet would', () => {
    const result = plan(`
pod:
  metadata: { name: web }
  logDirectory: /tmp/logs
containers:
  - metadata: { name: app }
    image: { image: busybox }
    command: [sleep, "3600"]
    envs: [{ key: A, value: 1 }]
`);
    expect(result.pod.metadata).toMatchObject({ name: 'web', namespace: 'default', attempt: 0 });
    expect(result.pod.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const [container] = result.containers;
    expect(container?.command).toEqual(['sleep', '3600']);
    expect(container?.logPath).toBe('app/0.log');
    expect(Buffer.from(container?.envs?.[0]?.value as Uint8Array).toString()).toBe('1');
  });

  it("accepts crictl's snake_case JSON, numeric enums and int64 strings", () => {
    const result = plan(
      JSON.stringify({
        pod: {
          metadata: { name: 'p', namespace: 'ns', uid: 'u1', attempt: 1 },
          log_directory: '/tmp',
          port_mappings: [{ protocol: 1, container_port: 80, host_port: 8080 }],
          labels: { 'app.kubernetes.io/name': 'x', snake_key: 'kept' },
          linux: { security_context: { namespace_options: { network: 2 } } },
        },
        containers: [
          {
            metadata: { name: 'c' },
            image: { image: 'busybox' },
            linux: { resources: { memory_limit_in_bytes: '9007199254740993' } },
          },
        ],
        runtime_handler: 'runc',
      }),
    );
    expect(result.pod.portMappings).toEqual([
      { protocol: 'UDP', containerPort: 80, hostPort: 8080 },
    ]);
    expect(result.pod.labels).toEqual({ 'app.kubernetes.io/name': 'x', snake_key: 'kept' });
    expect(result.pod.linux?.securityContext?.namespaceOptions?.network).toBe('NODE');
    expect(result.containers[0]?.linux?.resources?.memoryLimitInBytes).toBe('9007199254740993');
    expect(result.runtimeHandler).toBe('runc');
  });

  it("gives containers their pod's namespace modes unless they set their own", () => {
    const result = plan(`
pod:
  metadata: { name: p }
  linux: { security_context: { namespace_options: { pid: CONTAINER } } }
containers:
  - metadata: { name: inherits }
    image: { image: busybox }
    linux: { resources: { cpu_shares: 2 } }
  - metadata: { name: own }
    image: { image: busybox }
    linux: { security_context: { namespace_options: { pid: POD } } }
`);
    const [inherits, own] = result.containers;
    expect(inherits?.linux?.securityContext?.namespaceOptions).toEqual({ pid: 'CONTAINER' });
    expect(inherits?.linux?.resources?.cpuShares).toBe('2');
    expect(own?.linux?.securityContext?.namespaceOptions).toEqual({ pid: 'POD' });
  });

  it('accepts a bare crictl pod config as a pod without containers', () => {
    const result = plan('{"metadata": {"name": "solo", "uid": "u", "namespace": "n"}}');
    expect(result.pod.metadata?.name).toBe('solo');
    expect(result.containers).toEqual([]);
  });

  it('reports unknown fields, wrong types and missing fields with paths and lines', () => {
    const found = problems(`pod:
  metadata:
    namespace: x
  log_dirctory: /tmp
containers:
  - metadata: { name: a }
    image: { image: busybox }
    tty: "yes"
  - metadata: { name: a }
`);
    expect(found).toEqual(
      expect.arrayContaining([
        { path: 'pod.metadata.name', line: 3, column: 5, message: 'This field is required.' },
        { path: 'pod.log_dirctory', line: 4, column: 3, message: 'Unknown field "log_dirctory".' },
        expect.objectContaining({ path: 'containers[0].tty', line: 8, column: 10 }),
        expect.objectContaining({
          path: 'containers[1].image',
          line: 9,
          message: 'This field is required.',
        }),
      ]),
    );
  });

  it('reports duplicate container names and a field written in both spellings', () => {
    const found = problems(`pod: { metadata: { name: p } }
containers:
  - { metadata: { name: a }, image: { image: x } }
  - { metadata: { name: a }, image: { image: x }, working_dir: /, workingDir: / }
`);
    expect(found.map((p) => [p.path, p.line])).toEqual(
      expect.arrayContaining([
        ['containers[1].metadata.name', 4],
        ['containers[1].workingDir', 4],
      ]),
    );
  });

  it('reports syntax errors with their position, and empty or odd documents', () => {
    expect(problems('pod: {\n  metadata: [')[0]).toMatchObject({
      path: '',
      line: expect.any(Number) as number,
    });
    expect(problems('a: 1\na: 2')[0]?.message).toMatch(/unique/i);
    expect(problems('')[0]?.message).toMatch(/empty/);
    expect(problems('- 1')[0]?.message).toMatch(/mapping/);
    expect(problems('{"metadata": {"name": "c"}, "image": {"image": "x"}}')[0]?.message).toMatch(
      /container config/,
    );
  });

  it('refuses invalid enum names and out-of-range ports', () => {
    const found = problems(`pod:
  metadata: { name: p }
  port_mappings: [{ protocol: TCPX, container_port: 70000 }]
`);
    expect(found.map((p) => p.path).sort()).toEqual([
      'pod.port_mappings[0].container_port',
      'pod.port_mappings[0].protocol',
    ]);
  });
});
