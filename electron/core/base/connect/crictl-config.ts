import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/** The part of crictl's configuration file that says where the runtime is. */
export interface CrictlConfig {
  readonly runtimeEndpoint?: string;
  readonly imageEndpoint?: string;
  /** crictl's `timeout`, in seconds. */
  readonly timeoutSeconds?: number;
}

export type CrictlConfigResult =
  | { readonly state: 'absent' }
  | { readonly state: 'loaded'; readonly config: CrictlConfig }
  | { readonly state: 'invalid'; readonly message: string };

/** Reads crictl.yaml; a missing file is normal, a broken one is reported, never thrown. */
export async function readCrictlConfig(path: string): Promise<CrictlConfigResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' };
    return { state: 'invalid', message: `Could not read ${path}: ${(error as Error).message}` };
  }
  return parseCrictlConfig(text, path);
}

export function parseCrictlConfig(text: string, path: string): CrictlConfigResult {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return { state: 'invalid', message: `${path} is not valid YAML: ${(error as Error).message}` };
  }
  if (document == null) return { state: 'loaded', config: {} };
  if (typeof document !== 'object' || Array.isArray(document)) {
    return { state: 'invalid', message: `${path} should be a YAML mapping of settings.` };
  }
  const settings = document as Record<string, unknown>;
  const config: {
    runtimeEndpoint?: string;
    imageEndpoint?: string;
    timeoutSeconds?: number;
  } = {};
  const runtime = settings['runtime-endpoint'];
  const image = settings['image-endpoint'];
  const timeout = settings.timeout;
  if (typeof runtime === 'string' && runtime.trim() !== '') config.runtimeEndpoint = runtime.trim();
  if (typeof image === 'string' && image.trim() !== '') config.imageEndpoint = image.trim();
  if (typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0) {
    config.timeoutSeconds = timeout;
  } else if (timeout !== undefined && timeout !== null) {
    return {
      state: 'invalid',
      message: `${path}: "timeout" must be a positive number of seconds.`,
    };
  }
  return { state: 'loaded', config };
}
