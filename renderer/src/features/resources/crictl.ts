/**
 * "Copy as crictl command": the crictl equivalent of every action Porthole takes, so a
 * user can repeat it in a shell on the node, script it, or paste it into a bug report.
 * Pure string building; nothing here runs anything.
 */
import { shellQuote } from '../../../../shared/shell';

export { shellQuote };

export interface CrictlTarget {
  /** The node's runtime endpoint, e.g. `unix:///run/containerd/containerd.sock`. */
  readonly endpoint: string;
  /** Only when the image service listens elsewhere. */
  readonly imageEndpoint?: string;
  /** The node's per-call deadline, when it isn't crictl's default. */
  readonly timeoutMs?: number;
}

export type CrictlAction =
  | { readonly kind: 'version' | 'info' | 'list-pods' | 'list-images' }
  | { readonly kind: 'list-containers'; readonly podSandboxId?: string }
  | { readonly kind: 'inspect-container' | 'remove-container' | 'logs'; readonly id: string }
  | { readonly kind: 'stop-container'; readonly id: string; readonly timeoutSeconds: number }
  | { readonly kind: 'exec'; readonly id: string; readonly command: readonly string[] }
  | {
      /** A command without a terminal on one container (Run on many, a chosen set). */
      readonly kind: 'exec-one';
      readonly id: string;
      readonly sync: boolean;
      readonly timeoutSeconds: number;
      readonly command: readonly string[];
    }
  | {
      /** One command on every container that matches, in parallel (Run on many). */
      readonly kind: 'exec-many';
      /** crictl's --label filters: key=value, all must hold. */
      readonly labels?: Readonly<Record<string, string>>;
      /** crictl's --name: a regular expression on the container name. */
      readonly name?: string;
      /** ExecSync (`--sync`) rather than streaming exec. */
      readonly sync: boolean;
      /** 0 = none. */
      readonly timeoutSeconds: number;
      readonly command: readonly string[];
    }
  | { readonly kind: 'inspect-pod' | 'stop-pod' | 'remove-pod'; readonly id: string }
  | { readonly kind: 'inspect-image' | 'remove-image'; readonly ref: string }
  | { readonly kind: 'pull-image'; readonly ref: string; readonly username?: string };

function isImageAction(action: CrictlAction): boolean {
  return action.kind.endsWith('-image') || action.kind === 'list-images';
}

function globalFlags(target: CrictlTarget, action: CrictlAction): string[] {
  const flags = ['--runtime-endpoint', target.endpoint];
  if (
    isImageAction(action) &&
    target.imageEndpoint !== undefined &&
    target.imageEndpoint !== '' &&
    target.imageEndpoint !== target.endpoint
  ) {
    flags.push('--image-endpoint', target.imageEndpoint);
  }
  if (target.timeoutMs !== undefined && target.timeoutMs > 0) {
    // crictl's --timeout takes a Go duration.
    flags.push('--timeout', `${Math.ceil(target.timeoutMs / 1000)}s`);
  }
  return flags;
}

function subcommand(action: CrictlAction): string[] {
  switch (action.kind) {
    case 'version':
      return ['version'];
    case 'info':
      return ['info'];
    case 'list-pods':
      return ['pods'];
    case 'list-images':
      return ['images', '--digests'];
    case 'list-containers':
      return action.podSandboxId === undefined
        ? ['ps', '--all']
        : ['ps', '--all', '--pod', action.podSandboxId];
    case 'inspect-container':
      return ['inspect', action.id];
    case 'stop-container':
      return [
        'stop',
        '--timeout',
        String(Math.max(0, Math.round(action.timeoutSeconds))),
        action.id,
      ];
    case 'remove-container':
      return ['rm', action.id];
    case 'logs':
      return ['logs', '--follow', action.id];
    case 'exec':
      return ['exec', '-it', action.id, ...action.command];
    case 'exec-one':
      return [
        'exec',
        ...(action.sync ? ['--sync'] : []),
        ...(action.timeoutSeconds > 0 ? ['--timeout', String(action.timeoutSeconds)] : []),
        action.id,
        ...action.command,
      ];
    case 'exec-many':
      return [
        'exec',
        ...Object.entries(action.labels ?? {}).flatMap(([key, value]) => [
          '--label',
          `${key}=${value}`,
        ]),
        ...(action.name !== undefined ? ['--name', action.name] : []),
        // Only running containers can exec; crictl would try the exited ones too.
        '--state',
        'running',
        '--parallel',
        ...(action.sync ? ['--sync'] : []),
        ...(action.timeoutSeconds > 0 ? ['--timeout', String(action.timeoutSeconds)] : []),
        ...action.command,
      ];
    case 'inspect-pod':
      return ['inspectp', action.id];
    case 'stop-pod':
      return ['stopp', action.id];
    case 'remove-pod':
      return ['rmp', action.id];
    case 'inspect-image':
      return ['inspecti', action.ref];
    case 'remove-image':
      return ['rmi', action.ref];
    case 'pull-image':
      // Never the password: with --username crictl asks for it on the terminal, and a
      // clipboard (or a shell history) is the wrong place for a secret.
      return action.username !== undefined && action.username !== ''
        ? ['pull', '--username', action.username, action.ref]
        : ['pull', action.ref];
  }
}

export function crictlCommand(target: CrictlTarget, action: CrictlAction): string {
  return ['crictl', ...globalFlags(target, action), ...subcommand(action)]
    .map(shellQuote)
    .join(' ');
}

/**
 * What `lifecycle.runFromSpec` does, as a crictl script: write the pod config and one
 * config per container, then `runp`, `create` and `start` each container in the pod.
 */
export function crictlRunScript(
  target: CrictlTarget,
  podConfig: unknown,
  containerConfigs: readonly unknown[],
): string {
  const crictl = ['crictl', ...globalFlags(target, { kind: 'version' })].map(shellQuote).join(' ');
  const heredoc = (file: string, value: unknown): string =>
    `cat > ${file} <<'PORTHOLE_EOF'\n${JSON.stringify(value, null, 2)}\nPORTHOLE_EOF`;
  const lines = [heredoc('pod.json', podConfig)];
  containerConfigs.forEach((config, index) => {
    lines.push(heredoc(`container-${index}.json`, config));
  });
  lines.push(`POD_ID=$(${crictl} runp pod.json)`);
  containerConfigs.forEach((_config, index) => {
    const variable = `CONTAINER_${index}`;
    lines.push(`${variable}=$(${crictl} create "$POD_ID" container-${index}.json pod.json)`);
    lines.push(`${crictl} start "$${variable}"`);
  });
  return lines.join('\n');
}
