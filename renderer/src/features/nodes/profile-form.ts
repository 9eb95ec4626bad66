import type { NodeProfileInput, NodeStatus } from '../../../../shared/model';

/** The node form as the user types it: strings, validated on submit and as they type. */
export interface ProfileDraft {
  readonly id?: string;
  readonly name: string;
  readonly endpoint: string;
  /** Seconds, as typed; blank for the default. */
  readonly timeoutSeconds: string;
  readonly autoConnect: boolean;
}

export type ProfileField = 'name' | 'endpoint' | 'timeoutSeconds';

export type ProfileValidation =
  | { readonly ok: true; readonly input: NodeProfileInput }
  | { readonly ok: false; readonly errors: Readonly<Partial<Record<ProfileField, string>>> };

export const emptyDraft: ProfileDraft = {
  name: '',
  endpoint: '',
  timeoutSeconds: '',
  autoConnect: false,
};

/** Longest per-call deadline the form accepts: anything longer hides a dead node. */
export const maxTimeoutSeconds = 600;

export function draftFromStatus(
  node: NodeStatus,
  profile?: { timeoutMs?: number; autoConnect?: boolean },
): ProfileDraft {
  return {
    ...(node.origin === 'saved' && { id: node.nodeId }),
    name: node.name,
    endpoint: node.endpoint,
    timeoutSeconds:
      profile?.timeoutMs !== undefined ? String(Math.round(profile.timeoutMs / 1000)) : '',
    autoConnect: profile?.autoConnect ?? false,
  };
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
  const endpoint = normalizeEndpoint(draft.endpoint);

  if (name === '') errors.name = 'Give the node a name.';
  else if (name.length > 80) errors.name = 'Keep the name under 80 characters.';
  else if (nodes.some((n) => n.origin === 'saved' && n.nodeId !== draft.id && n.name === name)) {
    errors.name = `Another saved node is already called "${name}".`;
  }

  const endpointError = endpointProblem(endpoint);
  if (endpointError !== undefined) errors.endpoint = endpointError;
  else {
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

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      ...(draft.id !== undefined && { id: draft.id }),
      kind: 'local',
      name,
      endpoint,
      ...(timeoutMs !== undefined && { timeoutMs }),
      autoConnect: draft.autoConnect,
    },
  };
}
