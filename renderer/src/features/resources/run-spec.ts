import { parse } from 'yaml';
import type { RunStep, SpecProblem } from '../../../../shared/contract';
import type { CgroupDriverInfo } from '../../../../shared/model';

/** What the template needs to know about the node it will run on. */
export interface TemplateNode {
  readonly name: string;
  readonly cgroupDriver?: CgroupDriverInfo;
}

/** A short random id, so each pod from the template gets a cgroup of its own. */
function randomSuffix(): string {
  const bytes = new Uint8Array(4);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * A cgroup parent of the pod's own, in the form the node's cgroup driver wants: a path
 * for cgroupfs, a slice for systemd (`porthole-pod<id>.slice` nests in `porthole.slice`).
 * The runtime reads a pod's stats from that cgroup: without one there are none.
 */
export function podCgroupParent(
  driver: CgroupDriverInfo['driver'] | undefined,
  suffix: string,
): string {
  return driver === 'systemd' ? `porthole-pod${suffix}.slice` : `/porthole/pod-${suffix}`;
}

function cgroupComment(node: TemplateNode | undefined): string {
  const driver = node?.cgroupDriver;
  if (node === undefined || driver === undefined) {
    return "    # The pod's own cgroup, so the runtime can read its stats (cgroupfs form).";
  }
  if (driver.driver === 'unknown') {
    return [
      `    # The pod's own cgroup, so the runtime can read its stats. ${node.name} doesn't say`,
      '    # its cgroup driver: this is the cgroupfs form (systemd wants porthole-pod<id>.slice).',
    ].join('\n');
  }
  return [
    "    # The pod's own cgroup, so the runtime can read its stats, in the form",
    `    # ${node.name}'s ${driver.driver} driver wants (${driver.from ?? 'its configuration'} says so).`,
  ].join('\n');
}

/**
 * The spec editor's starting point: a pod with one busybox container that runs as it is
 * on the lab (`npm run lab -- up` imports the image; no registry is needed), with a cgroup
 * parent of its own that suits the node's cgroup driver, so its stats can be read.
 */
export function starterSpec(node?: TemplateNode, suffix: string = randomSuffix()): string {
  return `# A pod and the containers to run in it, in crictl's pod and container
# config formats (YAML or JSON; camelCase or snake_case). Ctrl+Enter runs it.
pod:
  metadata:
    name: porthole-demo
    namespace: default
  labels:
    app: porthole-demo
  logDirectory: /tmp/porthole-demo/logs
  linux:
${cgroupComment(node)}
    cgroupParent: ${podCgroupParent(node?.cgroupDriver?.driver, suffix)}
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
}

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

/** One step of a run, as runFromSpec names it (RunStep) and as the dialog lists it. */
export interface RunStepLine {
  readonly id: RunStep;
  readonly label: string;
}

/** The steps running `text` takes, in order (empty when it doesn't parse). */
export function runSteps(text: string): RunStepLine[] {
  const configs = specToCrictlConfigs(text);
  if (configs === undefined) return [];
  const podName = asRecord(configs.pod.metadata)?.name;
  const steps: RunStepLine[] = [
    { id: 'pod', label: `Start the pod ${typeof podName === 'string' ? podName : ''}`.trim() },
  ];
  configs.containers.forEach((container, index) => {
    const text = (value: unknown, fallback: string): string =>
      typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
    const name = text(asRecord(container.metadata)?.name, `#${index + 1}`);
    const image = text(asRecord(container.image)?.image, '');
    steps.push(
      { id: `pull:${index}`, label: `Pull ${image} for ${name}, if the node lacks it` },
      { id: `create:${index}`, label: `Create the container ${name}` },
      { id: `start:${index}`, label: `Start the container ${name}` },
    );
  });
  return steps;
}
