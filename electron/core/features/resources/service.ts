import type { CallContext, ServiceHandler } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type { ContainerDetail, Image, PodSandboxDetail } from '../../../../shared/model';
import { requireString } from '../../base/args';
import { toCallOptions, type NodeManager } from '../nodes';

export class ResourcesServiceImpl implements ServiceHandler<'resources'> {
  constructor(private readonly nodes: NodeManager) {}

  async podDetail(
    nodeId: string,
    podSandboxId: string,
    context?: CallContext,
  ): Promise<PodSandboxDetail> {
    const client = this.nodes.client(requireString(nodeId, 'nodeId'));
    return client.podStatus(requireString(podSandboxId, 'podSandboxId'), {
      verbose: true,
      ...toCallOptions(context?.signal),
    });
  }

  async containerDetail(
    nodeId: string,
    containerId: string,
    context?: CallContext,
  ): Promise<ContainerDetail> {
    const client = this.nodes.client(requireString(nodeId, 'nodeId'));
    return client.containerStatus(requireString(containerId, 'containerId'), {
      verbose: true,
      ...toCallOptions(context?.signal),
    });
  }

  async imageDetail(nodeId: string, imageRef: string, context?: CallContext): Promise<Image> {
    const client = this.nodes.client(requireString(nodeId, 'nodeId'));
    const image = await client.imageStatus(
      requireString(imageRef, 'imageRef'),
      toCallOptions(context?.signal),
    );
    if (image === undefined) {
      throw new AppError({
        code: 'not-found',
        message: `The node has no image ${imageRef}.`,
        hint: 'It may have been removed; the image list refreshes by itself.',
      });
    }
    return image;
  }
}
