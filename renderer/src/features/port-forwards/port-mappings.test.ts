import { describe, expect, it } from 'vitest';
import { declaredPorts } from './port-mappings';

describe('declaredPorts', () => {
  it("reads containerd's port_mappings (protocol as the enum's number, TCP omitted)", () => {
    // What containerd 1.6 and 2.x report for PodSandboxStatus verbose (seen in the lab).
    const info = {
      info: {
        pid: 42,
        config: {
          port_mappings: [
            { container_port: 8080 },
            { protocol: 1, container_port: 53, host_port: 5353 },
            { container_port: 80 },
            { container_port: 8080 },
          ],
        },
      },
    };
    expect(declaredPorts(info)).toEqual([
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 8080, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP', hostPort: 5353 },
    ]);
  });

  it('reads camelCase mappings with protocol names', () => {
    const info = {
      info: { config: { portMappings: [{ containerPort: '9000', protocol: 'sctp' }] } },
    };
    expect(declaredPorts(info)).toEqual([{ containerPort: 9000, protocol: 'SCTP' }]);
  });

  it('says nothing when the runtime reports no config, or nonsense', () => {
    expect(declaredPorts({})).toEqual([]);
    expect(declaredPorts({ info: 'not json' })).toEqual([]);
    expect(declaredPorts({ info: { config: { port_mappings: 'x' } } })).toEqual([]);
    expect(
      declaredPorts({
        info: {
          config: {
            port_mappings: [
              { container_port: 0 },
              { container_port: 70000 },
              null,
              { protocol: 9, container_port: 1 },
            ],
          },
        },
      }),
    ).toEqual([]);
  });
});
