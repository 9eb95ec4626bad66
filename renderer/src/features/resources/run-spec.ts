import { parse } from 'yaml';
import type { SpecProblem } from '../../../../shared/contract';

/**
 * The spec editor's starting point: a pod with one busybox container that runs as it is
 * on the lab (`npm run lab -- up` imports the image; no registry is needed).
 */
export const starterSpec = `# A pod and the containers to run in it, in crictl's pod and container
# config formats (YAML or JSON; camelCase or snake_case). Ctrl+Enter runs it.
pod:
  metadata:
    name: porthole-demo
    namespace: default
  labels:
    app: porthole-demo
  logDirectory: /tmp/porthole-demo/logs
  linux:
    securityContext:
      # A PID namespace per container, the kubelet's default (containers get the pod's
      # modes). A shared one needs an infra container, which not every node can start.
      namespaceOptions: { pid: CONTAINER }
containers:
  - metadata:
      name: clock
    image:
      image: localhost/porthole/busybox:latest
    command: [sh, -c, 'while true; do date; sleep 5; done']
    labels:
      app: porthole-demo
`;

/** Fields whose values are maps of the user's own keys: their keys are never renamed. */
const userMaps = new Set(['labels', 'annotations', 'sysctls']);

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** crictl reads its JSON configs with snake_case field names. */
export function toCrictlJson(value: unknown, keepKeys = false): unknown {
  if (Array.isArray(value)) return value.map((item) => toCrictlJson(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, child]) => {
      const name = keepKeys ? key : snakeCase(key);
      return [name, toCrictlJson(child, !keepKeys && userMaps.has(name))];
    }),
  );
}

function uuid(): string {
  return typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `porthole-${Date.now().toString(36)}`;
}

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

/**
 * The spec as the files `crictl runp` / `crictl create` read, with the defaults Porthole
 * fills in (namespace, uid, attempt, log path), or undefined when the text doesn't parse.
 */
export function specToCrictlConfigs(text: string): { pod: Json; containers: Json[] } | undefined {
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    return undefined;
  }
  const root = asRecord(document);
  if (root === undefined) return undefined;
  const podSource = asRecord(root.pod) ?? (root.metadata !== undefined ? root : undefined);
  if (podSource === undefined) return undefined;
  const pod = toCrictlJson(podSource) as Json;
  const metadata = asRecord(pod.metadata) ?? {};
  pod.metadata = {
    ...metadata,
    namespace: metadata.namespace ?? 'default',
    uid: metadata.uid ?? uuid(),
    attempt: metadata.attempt ?? 0,
  };
  const list = Array.isArray(root.containers) ? root.containers : [];
  const containers = list.map((item) => {
    const container = toCrictlJson(item) as Json;
    const meta = asRecord(container.metadata) ?? {};
    const attempt = typeof meta.attempt === 'number' ? meta.attempt : 0;
    container.metadata = { ...meta, attempt };
    if (container.log_path === undefined && pod.log_directory !== undefined) {
      container.log_path = `${String(meta.name)}/${attempt}.log`;
    }
    // The pod's namespace modes, as runFromSpec gives them (CRI-O refuses a container whose
    // PID namespace mode differs from its pod's).
    const podNamespaces = asRecord(
      asRecord(asRecord(pod.linux)?.security_context)?.namespace_options,
    );
    const linux = asRecord(container.linux) ?? {};
    const security = asRecord(linux.security_context) ?? {};
    if (podNamespaces !== undefined && security.namespace_options === undefined) {
      container.linux = {
        ...linux,
        security_context: { ...security, namespace_options: { ...podNamespaces } },
      };
    }
    return container;
  });
  return { pod, containers };
}

/** The pod's name as written, for messages while the run is under way. */
export function specPodName(text: string): string | undefined {
  const configs = specToCrictlConfigs(text);
  const name = asRecord(configs?.pod.metadata)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Where in the text a problem points: a character range for the editor to underline. */
export function problemRange(text: string, problem: SpecProblem): { from: number; to: number } {
  const lines = text.split('\n');
  const lineIndex = Math.min(Math.max((problem.line ?? 1) - 1, 0), Math.max(lines.length - 1, 0));
  let from = 0;
  for (let i = 0; i < lineIndex; i += 1) from += (lines[i]?.length ?? 0) + 1;
  const line = lines[lineIndex] ?? '';
  const column = Math.min(Math.max((problem.column ?? 1) - 1, 0), line.length);
  const start = problem.column === undefined ? line.length - line.trimStart().length : column;
  const to = from + line.length;
  return { from: Math.min(from + start, to), to: Math.max(to, from + start) };
}
