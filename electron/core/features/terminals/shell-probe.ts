/**
 * The container's shell for exec, found with ExecSync: bash, then ash, then sh. One `sh`
 * script asks for all three at once (the usual case costs one round trip); an image
 * without `sh` gets bash and ash tried directly. busybox images have ash and sh; a
 * distroless image has none, which is a `not-found` the user can act on.
 */
import { AppError, isAppError } from '../../../../shared/errors';
import { noShellStep } from '../../../../shared/model';
import type { NodeClient } from '../nodes';

export type ProbeClient = Pick<NodeClient, 'execSync'>;

const shells = ['bash', 'ash', 'sh'] as const;
const probeScript =
  'for s in bash ash sh; do p=$(command -v "$s") && { echo "$p"; exit 0; }; done; exit 127';
/** Each probe is a trivial command; a runtime slower than this is not going to host a shell. */
const probeTimeoutSeconds = 10;

/** The OCI runtime could not start the binary: it does not exist in the image. */
function isMissingExecutable(error: unknown): boolean {
  if (!isAppError(error)) return false;
  const text = `${error.message} ${error.detail ?? ''}`;
  return /executable file not found|no such file or directory/i.test(text);
}

/**
 * What `command -v` printed, when it names one of the shells: a path (`/bin/bash`), or
 * a bare name for a busybox applet (`ash`), which exec resolves through PATH.
 */
function shellFrom(stdout: Uint8Array): string | undefined {
  const line = Buffer.from(stdout).toString('utf8').split('\n')[0]?.trim() ?? '';
  if (!/^[\w./+-]{1,256}$/.test(line)) return undefined;
  const name = line.slice(line.lastIndexOf('/') + 1);
  return (shells as readonly string[]).includes(name) ? line : undefined;
}

async function runs(
  client: ProbeClient,
  containerId: string,
  cmd: readonly string[],
  signal: AbortSignal | undefined,
): Promise<{ readonly exitCode: number; readonly stdout: Uint8Array } | undefined> {
  try {
    return await client.execSync(containerId, cmd, probeTimeoutSeconds, {
      ...(signal !== undefined && { signal }),
    });
  } catch (error) {
    if (isMissingExecutable(error)) return undefined;
    throw error;
  }
}

export async function probeShell(
  client: ProbeClient,
  containerId: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const viaSh = await runs(client, containerId, ['sh', '-c', probeScript], signal);
  // sh ran, so there is a shell: the best one it found, or itself.
  if (viaSh !== undefined) return [(viaSh.exitCode === 0 && shellFrom(viaSh.stdout)) || 'sh'];
  for (const shell of ['bash', 'ash']) {
    const result = await runs(client, containerId, [shell, '-c', 'exit 0'], signal);
    if (result?.exitCode === 0) return [shell];
  }
  throw new AppError({
    code: 'not-found',
    message: 'This container has no shell (none of bash, ash or sh).',
    detail: 'Probed with ExecSync: `command -v` through sh, then each shell directly.',
    hint: 'The image may be distroless: debug it from a toolbox container (Debug…), run a command it has, or attach to it.',
    // What the UI keys its "Debug…" offer on.
    step: noShellStep,
  });
}
