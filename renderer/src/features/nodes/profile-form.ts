import type { NodeProfile, NodeProfileInput, NodeStatus } from '../../../../shared/model';

/**
 * The node form as the user types it: strings, validated on submit and as they type. A
 * local node is a runtime socket on this machine; an SSH node is a host (an ssh_config
 * alias is enough) whose runtime socket is given or probed on the node.
 */
export interface ProfileDraft {
  readonly id?: string;
  readonly kind: 'local' | 'ssh';
  readonly name: string;
  /** Local: the socket. SSH: the runtime socket on the node, blank to probe for it. */
  readonly endpoint: string;
  /** Seconds, as typed; blank for the default. */
  readonly timeoutSeconds: string;
  readonly autoConnect: boolean;
  readonly host: string;
  readonly user: string;
  /** As typed; blank for the config's or 22. */
  readonly port: string;
  readonly identityFile: string;
  readonly proxyJump: string;
}

export type ProfileField = 'name' | 'endpoint' | 'timeoutSeconds' | 'host' | 'port';

export type ProfileValidation =
  | { readonly ok: true; readonly input: NodeProfileInput }
  | { readonly ok: false; readonly errors: Readonly<Partial<Record<ProfileField, string>>> };

export const emptyDraft: ProfileDraft = {
  kind: 'local',
  name: '',
  endpoint: '',
  timeoutSeconds: '',
  autoConnect: false,
  host: '',
  user: '',
  port: '',
  identityFile: '',
  proxyJump: '',
};

/** Longest per-call deadline the form accepts: anything longer hides a dead node. */
export const maxTimeoutSeconds = 600;

export function draftFromStatus(node: NodeStatus, profile?: NodeProfile): ProfileDraft {
  const common = {
    ...emptyDraft,
    ...(node.origin === 'saved' && { id: node.nodeId }),
    name: node.name,
    timeoutSeconds:
      profile?.timeoutMs !== undefined ? String(Math.round(profile.timeoutMs / 1000)) : '',
    autoConnect: profile?.autoConnect ?? false,
  };
  if (profile?.kind === 'ssh') {
    return {
      ...common,
      kind: 'ssh',
      endpoint: profile.runtimeEndpoint ?? '',
      host: profile.host,
      user: profile.user ?? '',
      port: profile.port !== undefined ? String(profile.port) : '',
      identityFile: profile.identityFiles?.[0] ?? '',
      proxyJump: profile.proxyJump ?? '',
    };
  }
  return { ...common, endpoint: node.endpoint };
}

/** Accepts crictl's form (`unix:///run/…`) or a bare socket path. */
export function normalizeEndpoint(text: string): string {
  const trimmed = text.trim();
  return trimmed.startsWith('/') ? `unix://${trimmed}` : trimmed;
}

function endpointProblem(endpoint: string): string | undefined {
  if (endpoint === '')
    return 'Enter the runtime socket, e.g. unix:///run/containerd/containerd.sock.';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(endpoint)?.[1]?.toLowerCase();
  if (scheme === 'tcp' || scheme === 'npipe' || scheme === 'http' || scheme === 'https') {
    return `Porthole dials unix:// sockets only; ${scheme}:// endpoints are refused (they carry no authentication).`;
  }
  if (scheme !== 'unix') return 'Write it as unix:///absolute/path/to/runtime.sock.';
  const path = endpoint.slice('unix://'.length);
  if (!path.startsWith('/'))
    return 'The socket path must be absolute: unix:///path/to/runtime.sock.';
  if (path.length === 1 || path.endsWith('/')) return 'Name the socket file, not a directory.';
  return undefined;
}

export function validateProfile(
  draft: ProfileDraft,
  nodes: readonly NodeStatus[],
): ProfileValidation {
  const errors: Partial<Record<ProfileField, string>> = {};
  const name = draft.name.trim();
  const ssh = draft.kind === 'ssh';
  const endpoint = ssh && draft.endpoint.trim() === '' ? '' : normalizeEndpoint(draft.endpoint);

  if (name === '') errors.name = 'Give the node a name.';
  else if (name.length > 80) errors.name = 'Keep the name under 80 characters.';
  else if (nodes.some((n) => n.origin === 'saved' && n.nodeId !== draft.id && n.name === name)) {
    errors.name = `Another saved node is already called "${name}".`;
  }

  // On an SSH node the socket is optional (probed on the node) and names the node's own path.
  const endpointError = ssh && endpoint === '' ? undefined : endpointProblem(endpoint);
  if (endpointError !== undefined) errors.endpoint = endpointError;
  else if (!ssh) {
    const twin = nodes.find(
      (n) => n.origin === 'saved' && n.nodeId !== draft.id && n.endpoint === endpoint,
    );
    if (twin !== undefined) errors.endpoint = `"${twin.name}" already uses this endpoint.`;
  }

  let timeoutMs: number | undefined;
  const timeoutText = draft.timeoutSeconds.trim();
  if (timeoutText !== '') {
    const seconds = Number(timeoutText);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      errors.timeoutSeconds = 'A timeout is a number of seconds above zero.';
    } else if (seconds > maxTimeoutSeconds) {
      errors.timeoutSeconds = `At most ${maxTimeoutSeconds} seconds: longer hides a dead node.`;
    } else {
      timeoutMs = Math.round(seconds * 1000);
    }
  }

  const host = draft.host.trim();
  let port: number | undefined;
  if (ssh) {
    if (host === '') errors.host = 'Enter a host name, an address or an alias from ~/.ssh/config.';
    else if (/\s/.test(host) || host.startsWith('-'))
      errors.host = 'A host is one word, e.g. node-1 or 10.0.0.5.';
    const portText = draft.port.trim();
    if (portText !== '') {
      port = Number(portText);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        errors.port = 'A port is a whole number from 1 to 65535.';
    }
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const shared = {
    ...(draft.id !== undefined && { id: draft.id }),
    name,
    ...(timeoutMs !== undefined && { timeoutMs }),
    autoConnect: draft.autoConnect,
  };
  if (!ssh) return { ok: true, input: { ...shared, kind: 'local', endpoint } };
  const user = draft.user.trim();
  const identityFile = draft.identityFile.trim();
  const proxyJump = draft.proxyJump.trim();
  return {
    ok: true,
    input: {
      ...shared,
      kind: 'ssh',
      host,
      ...(user !== '' && { user }),
      ...(port !== undefined && { port }),
      ...(identityFile !== '' && { identityFiles: [identityFile] }),
      ...(proxyJump !== '' && { proxyJump }),
      ...(endpoint !== '' && { runtimeEndpoint: endpoint }),
    },
  };
}
