import { randomUUID } from 'node:crypto';
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
} from 'yaml';
import type { z } from 'zod';
import type { ContainerConfig, PodSandboxConfig } from '../../../../../proto/gen';
import type { SpecProblem } from '../../../../../shared/contract';
import { camelKey, runSpecSchema, type ParsedContainer, type ParsedRunSpec } from './schema';

/** What runFromSpec runs: CRI messages ready to send, defaults filled in. */
export interface RunPlan {
  readonly pod: PodSandboxConfig;
  readonly containers: readonly ContainerConfig[];
  readonly runtimeHandler: string;
}

export type SpecParseResult =
  | { readonly ok: true; readonly plan: RunPlan }
  | { readonly ok: false; readonly problems: readonly SpecProblem[] };

/** Specs are typed by hand; anything this big is a mistake (or an attack on the parser). */
export const maxSpecBytes = 1024 * 1024;

type PathSegment = PropertyKey;

/**
 * Parses and validates a run spec written as YAML or JSON (JSON is YAML). Every problem
 * carries the path of the field as the user spelled it and, when the field (or its
 * nearest written parent) is in the text, its line and column.
 */
export function parseRunSpec(text: string): SpecParseResult {
  if (text.length > maxSpecBytes) {
    return fail([{ path: '', message: `The spec is larger than ${maxSpecBytes / 1024} KiB.` }]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return fail(
      doc.errors.map((error) => {
        const position = error.linePos?.[0];
        return {
          path: '',
          message: firstLine(error.message),
          ...(position !== undefined && { line: position.line, column: position.col }),
        };
      }),
    );
  }
  let value: unknown;
  try {
    // Aliases are YAML's way to blow up memory: a spec has no business using many.
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    return fail([{ path: '', message: error instanceof Error ? error.message : String(error) }]);
  }
  if (value === null || value === undefined) {
    return fail([
      {
        path: '',
        line: 1,
        column: 1,
        message: 'The spec is empty: write a pod, and containers to run in it.',
      },
    ]);
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail([
      {
        path: '',
        line: 1,
        column: 1,
        message: 'The spec must be a mapping with a "pod" and a "containers" list.',
      },
    ]);
  }

  // A bare crictl pod-config.json (no `pod:` wrapper) is accepted as a pod without containers.
  const record = value as Record<string, unknown>;
  const bare = !('pod' in record) && 'metadata' in record;
  if (bare && ('image' in record || 'command' in record)) {
    return fail([
      {
        path: '',
        line: 1,
        column: 1,
        message:
          'This looks like a container config on its own: put it under "containers:" next to a "pod:".',
      },
    ]);
  }
  const input = bare ? { pod: record } : record;
  const result = runSpecSchema.safeParse(input, { reportInput: true });
  const duplicates = duplicateNames(input.containers);
  if (!result.success || duplicates.length > 0) {
    const locate: Locate = (path, at) =>
      locateIn(doc, lineCounter, bare && path[0] === 'pod' ? path.slice(1) : path, at);
    const problems = result.success ? [] : problemsOf(result.error, locate);
    for (const { path, message } of duplicates)
      problems.push({ ...locate(path, 'value'), message });
    return fail(problems);
  }
  return { ok: true, plan: toPlan(result.data) };
}

function fail(problems: SpecProblem[]): SpecParseResult {
  return { ok: false, problems };
}

/** yaml's pretty message minus the position and code excerpt we report separately. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

type Located = { path: string; line?: number; column?: number };
type Locate = (path: readonly PathSegment[], at: 'key' | 'value') => Located;

/**
 * Container names must be unique within the pod. Checked on the raw input, so it is
 * reported together with every other problem, not only once the rest is valid.
 */
function duplicateNames(containers: unknown): { path: PathSegment[]; message: string }[] {
  if (!Array.isArray(containers)) return [];
  const seen = new Map<string, number>();
  const found: { path: PathSegment[]; message: string }[] = [];
  containers.forEach((container: unknown, index) => {
    const metadata = (container as { metadata?: { name?: unknown } } | null)?.metadata;
    const name = typeof metadata === 'object' && metadata !== null ? metadata.name : undefined;
    if (typeof name !== 'string') return;
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else
      found.push({
        path: ['containers', index, 'metadata', 'name'],
        message: `Container name "${name}" is already used by containers[${first}].`,
      });
  });
  return found;
}

function problemsOf(error: z.ZodError, locate: Locate): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const where = locate([...issue.path, key], 'key');
        problems.push({ ...where, message: `Unknown field "${originalKey(where.path, key)}".` });
      }
      continue;
    }
    // A field written in both spellings: point at the second one.
    const at = issue.code === 'custom' && issue.path.length > 0 ? 'key' : 'value';
    problems.push({ ...locate(issue.path, at), message: messageOf(issue) });
  }
  return problems;
}

/** The key as the user wrote it: the last segment of the located display path. */
function originalKey(displayPath: string, fallback: string): string {
  const last = /(?:^|\.)([^.[\]]+)$/.exec(displayPath)?.[1];
  return last ?? fallback;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'This field is required.';
  if (issue.code === 'invalid_union')
    return 'This value has the wrong type or is not one of the allowed values.';
  return issue.message;
}

/**
 * Finds a schema path in the document: map keys are matched in either spelling (the
 * schema speaks camelCase), and the display path keeps the user's own spelling.
 */
function locateIn(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PathSegment[],
  at: 'key' | 'value',
): Located {
  let node: unknown = doc.contents;
  let anchor: { range?: [number, number, number] | null } | undefined = doc.contents ?? undefined;
  let display = '';
  let found = true;
  for (const segment of path) {
    if (typeof segment === 'number') {
      display += `[${segment}]`;
      if (found && isSeq(node)) {
        const item: unknown = node.items[segment];
        if (item !== undefined && item !== null) {
          node = item;
          anchor = item;
          continue;
        }
      }
      found = false;
      continue;
    }
    const name = String(segment);
    if (found && isMap(node)) {
      const keyOf = (item: { key: unknown }): string | undefined =>
        isScalar(item.key) ? String(item.key.value) : undefined;
      // The exact spelling first (map keys, the key a problem names), then snake_case.
      const pair =
        node.items.find((item) => keyOf(item) === name) ??
        node.items.find((item) => {
          const key = keyOf(item);
          return key !== undefined && camelKey(key) === name;
        });
      if (isPair(pair) && isScalar(pair.key)) {
        const written = String(pair.key.value);
        display += display === '' ? written : `.${written}`;
        // Point at the value when there is one, at the key for an empty value.
        anchor = at === 'key' ? pair.key : ((pair.value as Node | null) ?? pair.key);
        if (anchor.range == null) anchor = pair.key;
        node = pair.value;
        continue;
      }
    }
    found = false;
    display += display === '' ? name : `.${name}`;
  }
  const offset = anchor?.range?.[0];
  if (offset === undefined) return { path: display };
  const { line, col } = lineCounter.linePos(offset);
  return { path: display, line, column: col };
}

function toPlan(spec: ParsedRunSpec): RunPlan {
  const metadata = spec.pod.metadata;
  const pod: PodSandboxConfig = {
    ...spec.pod,
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace ?? 'default',
      // The kubelet always sends a uid; a hand-written spec usually has none.
      uid: metadata.uid ?? randomUUID(),
      attempt: metadata.attempt ?? 0,
    },
  };
  return {
    pod,
    containers: (spec.containers ?? []).map((container) => toContainerConfig(container, pod)),
    runtimeHandler: spec.runtimeHandler ?? '',
  };
}

function toContainerConfig(container: ParsedContainer, pod: PodSandboxConfig): ContainerConfig {
  const attempt = container.metadata.attempt ?? 0;
  const { envs, ...rest } = container;
  // The kubelet gives each container its pod's namespace modes; CRI-O refuses a container
  // whose PID namespace mode differs from its pod's.
  const podNamespaces = pod.linux?.securityContext?.namespaceOptions;
  const inherit =
    podNamespaces != null && container.linux?.securityContext?.namespaceOptions === undefined;
  return {
    ...rest,
    ...(inherit && {
      linux: {
        ...container.linux,
        securityContext: {
          ...container.linux?.securityContext,
          namespaceOptions: { ...podNamespaces },
        },
      },
    }),
    metadata: { name: container.metadata.name, attempt },
    // The CRI's KeyValue.value is bytes in this API version.
    ...(envs !== undefined && {
      envs: envs.map(({ key, value }) => ({ key, value: Buffer.from(value ?? '', 'utf8') })),
    }),
    // With a pod log directory, a container without a log path would log nowhere.
    ...(container.logPath === undefined &&
      pod.logDirectory && { logPath: `${container.metadata.name}/${attempt}.log` }),
  };
}
