/**
 * The ports a pod declares: the PodSandboxConfig's port_mappings, which CRI has no field
 * for in PodSandboxStatus. Runtimes that keep the config report it in the verbose info
 * (containerd: `info.config.port_mappings`, protocols as the proto enum's numbers), so the
 * forward dialog can offer them. Any other port can still be typed in.
 */
import type { VerboseInfo } from '../../../../shared/model';

export type PortProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface DeclaredPort {
  readonly containerPort: number;
  readonly protocol: PortProtocol;
  /** Published on the node, when the mapping says so (not used by forwarding). */
  readonly hostPort?: number;
}

const protocols: readonly PortProtocol[] = ['TCP', 'UDP', 'SCTP'];

function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function portNumber(value: unknown): number | undefined {
  const port = typeof value === 'string' ? Number(value) : value;
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
    ? port
    : undefined;
}

/** The proto enum as number (containerd's JSON) or as its name; absent means TCP (0). */
function protocolOf(value: unknown): PortProtocol | undefined {
  if (value === undefined || value === null) return 'TCP';
  if (typeof value === 'number') return protocols[value];
  if (typeof value === 'string') {
    const upper = value.toUpperCase();
    return protocols.find((protocol) => protocol === upper);
  }
  return undefined;
}

/** The declared ports, TCP first then by number, each once. Empty when the runtime says nothing. */
export function declaredPorts(info: VerboseInfo): DeclaredPort[] {
  const runtimeInfo = asRecord(info.info);
  const config = asRecord(runtimeInfo?.config);
  const mappings = config?.port_mappings ?? config?.portMappings;
  if (!Array.isArray(mappings)) return [];
  const ports = new Map<string, DeclaredPort>();
  for (const item of mappings) {
    const mapping = asRecord(item);
    const containerPort = portNumber(mapping?.container_port ?? mapping?.containerPort);
    const protocol = protocolOf(mapping?.protocol);
    if (containerPort === undefined || protocol === undefined) continue;
    const hostPort = portNumber(mapping?.host_port ?? mapping?.hostPort);
    const key = `${protocol}/${containerPort}`;
    if (!ports.has(key)) {
      ports.set(key, { containerPort, protocol, ...(hostPort !== undefined && { hostPort }) });
    }
  }
  return [...ports.values()].sort(
    (a, b) =>
      Number(a.protocol !== 'TCP') - Number(b.protocol !== 'TCP') ||
      a.containerPort - b.containerPort,
  );
}
