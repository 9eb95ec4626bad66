import type { CallContext, ServiceHandler } from '../../../../shared/contract';
import type { DebugContainer, DebugStarted } from '../../../../shared/model';
import { requireString } from '../../base/args';
import { toCallOptions } from '../nodes';
import { parseStartRequest, requireBoolean } from './arguments';
import type { DebugManager } from './manager';

/** The `debug` service: checks what the page sent, then asks the debug manager. */
export class DebugServiceImpl implements ServiceHandler<'debug'> {
  constructor(private readonly debug: DebugManager) {}

  async start(request: unknown, context?: CallContext): Promise<DebugStarted> {
    return await this.debug.start(
      parseStartRequest(request),
      toCallOptions(context?.signal).signal,
    );
  }

  async list(nodeId: string, context?: CallContext): Promise<readonly DebugContainer[]> {
    return await this.debug.list(
      requireString(nodeId, 'nodeId'),
      toCallOptions(context?.signal).signal,
    );
  }

  async keep(
    nodeId: string,
    containerId: string,
    keep: boolean,
    context?: CallContext,
  ): Promise<DebugContainer> {
    return await this.debug.keep(
      requireString(nodeId, 'nodeId'),
      requireString(containerId, 'containerId', 256),
      requireBoolean(keep, 'keep'),
      toCallOptions(context?.signal).signal,
    );
  }

  async remove(nodeId: string, containerId: string, context?: CallContext): Promise<void> {
    await this.debug.remove(
      requireString(nodeId, 'nodeId'),
      requireString(containerId, 'containerId', 256),
      toCallOptions(context?.signal).signal,
    );
  }
}
