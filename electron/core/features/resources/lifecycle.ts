import type {
  CallContext,
  RunResult,
  RunStep,
  ServiceHandler,
  SpecValidation,
} from '../../../../shared/contract';
import { posix } from 'node:path';
import type { ContainerConfig, PodSandboxConfig } from '../../../../proto/gen';
import type { CgroupDriverInfo } from '../../../../shared/model';
import { AppError, toAppErrorData } from '../../../../shared/errors';
import type { NodeFiles } from '../../base/files';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import { nodeFiles } from '../nodes';
import { toCallOptions, type NodeClient, type NodeManager } from '../nodes';
import { parseRunSpec, type RunPlan } from './spec';
import { logger } from '../../base/log';

const lifecycleLog = logger('resources');

/**
 * Changes to a node: stop and remove containers and pods, remove and pull images, run a
 * pod from a spec. After each change the node's resource subscribers get the delta at
 * once, without waiting for the next event or poll.
 */
export class LifecycleServiceImpl implements ServiceHandler<'lifecycle'> {
  constructor(private readonly nodes: NodeManager) {}

  async stopContainer(
    nodeId: string,
    containerId: string,
    gracePeriodSeconds: number,
    context?: CallContext,
  ): Promise<void> {
    await this.change(nodeId, (client) =>
      client.stopContainer(
        requireString(containerId, 'containerId'),
        requireNonNegativeInteger(gracePeriodSeconds, 'gracePeriodSeconds'),
        toCallOptions(context?.signal),
      ),
    );
  }

  async removeContainer(nodeId: string, containerId: string, context?: CallContext): Promise<void> {
    await this.change(nodeId, (client) =>
      client.removeContainer(
        requireString(containerId, 'containerId'),
        toCallOptions(context?.signal),
      ),
    );
  }

  /**
   * Stops a pod: its running containers, each given the grace period (a PID 1 that ignores
   * SIGTERM is waited out), then the sandbox (see CriClient.stopPod).
   */
  async stopPod(
    nodeId: string,
    podSandboxId: string,
    gracePeriodSeconds: number,
    context?: CallContext,
  ): Promise<void> {
    await this.change(nodeId, (client) =>
      client.stopPod(
        requireString(podSandboxId, 'podSandboxId'),
        requireNonNegativeInteger(gracePeriodSeconds, 'gracePeriodSeconds'),
        toCallOptions(context?.signal),
      ),
    );
  }

  /**
   * Removes a pod, stopping it first without a grace period: RemovePodSandbox on a pod
   * that still runs would, on CRI-O, wait out containers that ignore SIGTERM.
   */
  async removePod(nodeId: string, podSandboxId: string, context?: CallContext): Promise<void> {
    const id = requireString(podSandboxId, 'podSandboxId');
    const options = toCallOptions(context?.signal);
    await this.change(nodeId, async (client) => {
      await client.stopPod(id, 0, options);
      await client.removePod(id, options);
    });
  }

  async removeImage(nodeId: string, imageRef: string, context?: CallContext): Promise<void> {
    await this.change(
      nodeId,
      (client) =>
        client.removeImage(requireString(imageRef, 'imageRef'), toCallOptions(context?.signal)),
      { images: true },
    );
  }

  async pullImage(
    nodeId: string,
    image: string,
    auth?: { readonly username: string; readonly password: string },
    context?: CallContext,
  ): Promise<string> {
    const reference = requireString(image, 'image');
    let credentials: { username: string; password: string } | undefined;
    if (auth !== undefined) {
      const record = requireObject(auth, 'auth');
      credentials = {
        username: requireString(record.username, 'auth.username'),
        password: requireString(record.password, 'auth.password'),
      };
    }
    return this.change(
      nodeId,
      (client) =>
        client.pullImage(reference, credentials, undefined, toCallOptions(context?.signal)),
      { images: true },
    );
  }

  validateSpec(specText: string): Promise<SpecValidation> {
    if (typeof specText !== 'string') {
      return Promise.resolve({ errors: [{ path: '', message: 'The spec must be text.' }] });
    }
    const result = parseRunSpec(specText);
    return Promise.resolve({ errors: result.ok ? [] : result.problems });
  }

  async runFromSpec(nodeId: string, specText: string, context?: CallContext): Promise<RunResult> {
    const client = this.nodes.client(requireString(nodeId, 'nodeId'));
    if (typeof specText !== 'string')
      throw new AppError({ code: 'invalid-argument', message: 'The spec must be text.' });
    const result = parseRunSpec(specText);
    if (!result.ok) {
      const [first] = result.problems;
      const where = (p: (typeof result.problems)[number]): string =>
        `${p.path || 'spec'}${p.line !== undefined ? ` (line ${p.line})` : ''}`;
      throw new AppError({
        code: 'invalid-argument',
        message:
          result.problems.length === 1 && first !== undefined
            ? `The spec is invalid: ${where(first)}: ${first.message}`
            : `The spec has ${result.problems.length} problems.`,
        detail: result.problems.map((p) => `${where(p)}: ${p.message}`).join('\n'),
        hint: 'Fix the fields marked in the editor and run it again.',
      });
    }
    try {
      return await runPlan(client, nodeFiles(this.nodes, nodeId), result.plan, context);
    } finally {
      // A run may have pulled images.
      await this.nodes.refreshResources(nodeId, { images: true });
    }
  }

  async cgroupDriver(nodeId: string, context?: CallContext): Promise<CgroupDriverInfo> {
    return this.nodes
      .client(requireString(nodeId, 'nodeId'))
      .cgroupDriver(toCallOptions(context?.signal));
  }

  /** Runs `action`, then refreshes the lists it changed (images only when `images`). */
  private async change<T>(
    nodeId: string,
    action: (client: NodeClient) => Promise<T>,
    what: { images?: boolean } = {},
  ): Promise<T> {
    const id = requireString(nodeId, 'nodeId');
    const value = await action(this.nodes.client(id));
    await this.nodes.refreshResources(id, what);
    return value;
  }
}

/**
 * Runs the pod, then each container (pulling its image when the node lacks it, creating
 * the directory of its log file as the kubelet does: CRI-O and conmon don't, and fail with
 * a bare "Exit status 1."). If any step fails, the pod is stopped and removed again, so a
 * failed run leaves nothing behind, and the error says which step failed.
 */
async function runPlan(
  client: NodeClient,
  files: NodeFiles,
  plan: RunPlan,
  context?: CallContext,
): Promise<RunResult> {
  const options = toCallOptions(context?.signal);
  let podSandboxId: string;
  try {
    podSandboxId = await client.runPod(plan.pod, plan.runtimeHandler, options);
  } catch (error) {
    throw stepFailed(error, 'pod', 'starting the pod');
  }
  const containerIds: string[] = [];
  let step: RunStep = 'pod';
  let doing = 'starting the pod';
  try {
    for (const [index, container] of plan.containers.entries()) {
      const name = container.metadata?.name ?? '?';
      const image = container.image?.image ?? '';
      [step, doing] = [`pull:${index}`, `pulling ${image} for container "${name}"`];
      if ((await client.imageStatus(image, options)) === undefined) {
        await client.pullImage(image, undefined, plan.pod, options);
      }
      const logDirectory = containerLogDirectory(plan.pod, container);
      if (logDirectory !== undefined) {
        [step, doing] = [`create:${index}`, `creating the log directory of container "${name}"`];
        await files.makeDirectory(logDirectory);
      }
      [step, doing] = [`create:${index}`, `creating container "${name}"`];
      const containerId = await client.createContainer(podSandboxId, container, plan.pod, options);
      containerIds.push(containerId);
      [step, doing] = [`start:${index}`, `starting container "${name}"`];
      await client.startContainer(containerId, options);
    }
  } catch (error) {
    // Clean up without the caller's signal: a cancelled run must not leave a pod behind.
    await client
      .stopPod(podSandboxId)
      .catch(
        lifecycleLog.failure(`Stopping pod ${podSandboxId} after a failed run failed`, 'warn'),
      );
    await client
      .removePod(podSandboxId)
      .catch(lifecycleLog.failure(`Pod ${podSandboxId} was left behind by a failed run`, 'warn'));
    throw stepFailed(error, step, doing, 'The pod was removed again.');
  }
  return { podSandboxId, containerIds };
}

/** A run's error, saying which step failed (for the dialog to show it there). */
function stepFailed(error: unknown, step: RunStep, doing: string, after?: string): AppError {
  const data = toAppErrorData(error);
  return new AppError(
    {
      ...data,
      message: `Failed ${doing}: ${data.message}`,
      ...((data.detail !== undefined || after !== undefined) && {
        detail: [data.detail, after].filter(Boolean).join('\n'),
      }),
      step,
    },
    { cause: error },
  );
}

/**
 * The directory the container's log file goes in (`log_directory` + `log_path`), when the
 * runtime will write one: both set and absolute, as the CRI requires.
 */
export function containerLogDirectory(
  pod: PodSandboxConfig,
  container: ContainerConfig,
): string | undefined {
  const directory = pod.logDirectory;
  const logPath = container.logPath;
  if (!directory || !logPath || !posix.isAbsolute(directory)) return undefined;
  return posix.dirname(posix.join(directory, logPath));
}
