import type { EndpointCandidate } from '../../../../shared/model';
import type { CrictlConfigResult } from './crictl-config';
import type { LabStateResult } from './lab-state';
import { wellKnownEndpoints } from './well-known';

export interface CandidateInputs {
  /** What the user set in Porthole, which wins over everything else. */
  readonly explicit?: { readonly endpoint: string; readonly imageEndpoint?: string };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly crictlConfigPath: string;
  readonly crictlConfig: CrictlConfigResult;
  /** Porthole's lab (`npm run lab -- up`): its state file and what it said. */
  readonly lab?: { readonly path: string; readonly result: LabStateResult };
}

export interface CandidateList {
  readonly candidates: readonly EndpointCandidate[];
  /** Problems worth telling the user about that did not stop discovery. */
  readonly warnings: readonly string[];
}

/**
 * Lists the endpoints to try in crictl's order of precedence: the explicit setting, then
 * CONTAINER_RUNTIME_ENDPOINT / IMAGE_SERVICE_ENDPOINT, then crictl.yaml, then the runtimes
 * of a running Porthole lab, then the well-known sockets. Each image endpoint falls back to its runtime endpoint, as in crictl.
 * Later duplicates of an endpoint are dropped so each socket is probed once.
 */
export function listCandidates(inputs: CandidateInputs): CandidateList {
  const candidates: EndpointCandidate[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const add = (candidate: EndpointCandidate): void => {
    const key = normalise(candidate.endpoint);
    if (seen.has(key)) return;
    seen.add(key);
    candidates.push(candidate);
  };

  if (inputs.explicit !== undefined && inputs.explicit.endpoint.trim() !== '') {
    const endpoint = inputs.explicit.endpoint.trim();
    add({
      endpoint,
      imageEndpoint: inputs.explicit.imageEndpoint?.trim() || endpoint,
      source: 'explicit',
      origin: 'Porthole settings',
    });
  }

  const envRuntime = inputs.env.CONTAINER_RUNTIME_ENDPOINT?.trim();
  const envImage = inputs.env.IMAGE_SERVICE_ENDPOINT?.trim();
  if (envRuntime) {
    add({
      endpoint: envRuntime,
      imageEndpoint: envImage || envRuntime,
      source: 'environment',
      origin: 'CONTAINER_RUNTIME_ENDPOINT',
    });
  } else if (envImage) {
    warnings.push(
      'IMAGE_SERVICE_ENDPOINT is set without CONTAINER_RUNTIME_ENDPOINT; it was ignored.',
    );
  }

  const crictl = inputs.crictlConfig;
  if (crictl.state === 'invalid') {
    warnings.push(crictl.message);
  } else if (crictl.state === 'loaded' && crictl.config.runtimeEndpoint !== undefined) {
    const { runtimeEndpoint, imageEndpoint, timeoutSeconds } = crictl.config;
    add({
      endpoint: runtimeEndpoint,
      imageEndpoint: imageEndpoint ?? runtimeEndpoint,
      source: 'crictl-config',
      origin: inputs.crictlConfigPath,
      ...(timeoutSeconds !== undefined && { timeoutMs: timeoutSeconds * 1000 }),
    });
  }

  const lab = inputs.lab;
  if (lab?.result.state === 'invalid') {
    warnings.push(lab.result.message);
  } else if (lab?.result.state === 'loaded') {
    for (const runtime of lab.result.runtimes) {
      add({
        endpoint: runtime.endpoint,
        imageEndpoint: runtime.endpoint,
        source: 'lab',
        origin: `lab ${runtime.id}`,
      });
    }
  }

  for (const { endpoint, runtime } of wellKnownEndpoints) {
    add({ endpoint, imageEndpoint: endpoint, source: 'well-known', origin: runtime });
  }
  return { candidates, warnings };
}

/** `/run/x.sock`, `unix:/run/x.sock` and `unix:///run/x.sock` name the same socket. */
function normalise(endpoint: string): string {
  return endpoint
    .trim()
    .replace(/^unix:(\/\/)?/i, '')
    .replace(/\/{2,}/g, '/');
}
