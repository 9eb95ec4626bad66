import { realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError } from '../../../../shared/errors';
import type {
  DiscoveredEndpoint,
  DiscoverySource,
  EndpointCandidate,
  EndpointProbe,
} from '../../../../shared/model';
import { CriClient, parseEndpoint } from '../cri';
import { listCandidates, type CandidateInputs } from './candidates';
import { readCrictlConfig } from './crictl-config';
import { labStateFile, readLabState } from './lab-state';
import { defaultCrictlConfigPath } from './well-known';

export interface DiscoveryOptions {
  readonly explicit?: CandidateInputs['explicit'];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults to CRI_CONFIG_FILE, then /etc/crictl.yaml. */
  readonly crictlConfigPath?: string;
  /** The lab's state file; defaults to `$PORTHOLE_LAB_DIR/lab.json` (/tmp/porthole-lab). */
  readonly labStatePath?: string;
  /** Deadline for each probe's Version call. */
  readonly probeTimeoutMs?: number;
}

export interface DiscoveryResult {
  readonly endpoints: readonly DiscoveredEndpoint[];
  readonly warnings: readonly string[];
  /** The variables and files read besides the probed sockets, and what each gave. */
  readonly sources: readonly DiscoverySource[];
}

/**
 * Finds the runtimes on this machine: every candidate, in crictl's order, probed with
 * Version and classified as ready, refused (exists but we may not use it), absent or
 * error. Sockets reached through a symlinked directory (/var/run → /run) count once.
 */
export async function discoverEndpoints(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const env = options.env ?? process.env;
  const crictlConfigPath =
    options.crictlConfigPath ?? env.CRI_CONFIG_FILE ?? defaultCrictlConfigPath;
  const labStatePath = options.labStatePath ?? labStateFile(env);
  const crictlConfig = await readCrictlConfig(crictlConfigPath);
  const labState = await readLabState(labStatePath);
  const { candidates, warnings } = listCandidates({
    ...(options.explicit !== undefined && { explicit: options.explicit }),
    env,
    crictlConfigPath,
    crictlConfig,
    lab: { path: labStatePath, result: labState },
  });
  const outcome = (
    state: 'absent' | 'loaded' | 'invalid',
    names: boolean,
  ): DiscoverySource['outcome'] =>
    state === 'absent' ? 'unset' : state === 'invalid' ? 'invalid' : names ? 'used' : 'empty';
  const sources: DiscoverySource[] = [
    ...(options.explicit !== undefined
      ? [{ source: 'explicit' as const, where: 'Porthole settings', outcome: 'used' as const }]
      : []),
    {
      source: 'environment',
      where: 'CONTAINER_RUNTIME_ENDPOINT',
      outcome: env.CONTAINER_RUNTIME_ENDPOINT?.trim() ? 'used' : 'unset',
    },
    {
      source: 'crictl-config',
      where: crictlConfigPath,
      outcome: outcome(
        crictlConfig.state,
        crictlConfig.state === 'loaded' && crictlConfig.config.runtimeEndpoint !== undefined,
      ),
    },
    {
      source: 'lab',
      where: labStatePath,
      outcome: outcome(labState.state, labState.state === 'loaded' && labState.runtimes.length > 0),
    },
  ];

  const unique: EndpointCandidate[] = [];
  const seenPaths = new Set<string>();
  for (const candidate of candidates) {
    const key = await canonicalSocketPath(candidate.endpoint);
    if (key !== undefined && seenPaths.has(key) && candidate.source === 'well-known') continue;
    if (key !== undefined) seenPaths.add(key);
    unique.push(candidate);
  }

  const probeTimeoutMs = options.probeTimeoutMs ?? 3000;
  const endpoints = await Promise.all(
    unique.map(async (candidate) => ({
      ...candidate,
      probe: await probeEndpoint(candidate, candidate.timeoutMs ?? probeTimeoutMs),
    })),
  );
  return { endpoints, warnings, sources };
}

/** Probes one endpoint with the CRI Version call; never throws. */
export async function probeEndpoint(
  candidate: Pick<EndpointCandidate, 'endpoint' | 'imageEndpoint'>,
  timeoutMs: number,
): Promise<EndpointProbe> {
  let socketPath: string;
  try {
    socketPath = parseEndpoint(candidate.endpoint).path;
  } catch (error) {
    return failed('error', error);
  }
  try {
    const info = await stat(socketPath);
    if (!info.isSocket()) {
      return {
        state: 'error',
        errorCode: 'invalid-argument',
        message: `${socketPath} exists but is not a socket.`,
        hint: 'Point Porthole at the runtime socket itself.',
      };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { state: 'absent', errorCode: 'not-found', message: `No socket at ${socketPath}.` };
    }
    if (code === 'EACCES') {
      return {
        state: 'refused',
        errorCode: 'permission-denied',
        message: `Permission denied looking up ${socketPath}.`,
        hint: `A directory on the way to the socket is closed to your user; check "ls -ld ${dirname(socketPath)}".`,
      };
    }
    return failed('error', error);
  }

  const client = CriClient.create({
    endpoint: candidate.endpoint,
    imageEndpoint: candidate.imageEndpoint,
    timeoutMs,
  });
  try {
    return { state: 'ready', info: await client.runtimeInfo() };
  } catch (error) {
    const refused =
      error instanceof AppError &&
      (error.code === 'permission-denied' || error.code === 'unavailable');
    return failed(refused ? 'refused' : 'error', error);
  } finally {
    client.dispose();
  }
}

function failed(state: 'refused' | 'error', error: unknown): EndpointProbe {
  if (error instanceof AppError) {
    return {
      state,
      errorCode: error.code,
      message: error.message,
      ...(error.hint !== undefined && { hint: error.hint }),
    };
  }
  return {
    state,
    errorCode: 'internal',
    message: error instanceof Error ? error.message : String(error),
  };
}

/** The socket path with symlinks in its directory resolved, or undefined if it can't be. */
async function canonicalSocketPath(endpoint: string): Promise<string | undefined> {
  try {
    const path = parseEndpoint(endpoint).path;
    const directory = await realpath(dirname(path));
    return join(directory, path.slice(dirname(path).length + 1));
  } catch {
    return undefined;
  }
}
