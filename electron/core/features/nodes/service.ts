import type {
  CallContext,
  DiscoveryReport,
  RemoveNodeOptions,
  ServiceHandler,
} from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import type {
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  PromptAnswer,
} from '../../../../shared/model';
import { requireObject, requireString } from '../../base/args';
import type { NodeManager } from './index';

/** What removing a node does to its port forwards (the forwards feature does it). */
export interface RemovedNodeForwards {
  removeForNode(nodeId: string): Promise<void>;
  keepForRemovedNode(nodeId: string): Promise<void>;
}

export class NodesServiceImpl implements ServiceHandler<'nodes'> {
  constructor(
    private readonly nodes: NodeManager,
    private readonly forwards?: RemovedNodeForwards,
  ) {}

  discover(): Promise<DiscoveryReport> {
    return this.nodes.discover();
  }

  list(): Promise<readonly NodeStatus[]> {
    return this.nodes.list();
  }

  saveProfile(profile: NodeProfileInput): Promise<NodeProfile> {
    // The profile store validates every field with its schema.
    return this.nodes.saveProfile(requireObject(profile, 'profile') as unknown as NodeProfileInput);
  }

  /** Its forwards are dealt with first: nothing is left pointing at a node that is gone. */
  async removeProfile(nodeId: string, options?: RemoveNodeOptions): Promise<void> {
    const id = requireString(nodeId, 'nodeId');
    const choice = options?.forwards ?? 'keep';
    if (choice !== 'keep' && choice !== 'remove') {
      throw new AppError({
        code: 'invalid-argument',
        message: 'What happens to the forwards is "remove" or "keep".',
      });
    }
    // Refused for an unknown or discovered node before any forward is touched.
    this.nodes.checkRemovable(id);
    if (choice === 'remove') await this.forwards?.removeForNode(id);
    else await this.forwards?.keepForRemovedNode(id);
    await this.nodes.removeProfile(id);
  }

  connect(nodeId: string, context?: CallContext): Promise<NodeStatus> {
    return this.nodes.connect(requireString(nodeId, 'nodeId'), context?.signal);
  }

  disconnect(nodeId: string): Promise<void> {
    return this.nodes.disconnect(requireString(nodeId, 'nodeId'));
  }

  answerPrompt(promptId: string, answer: PromptAnswer): Promise<void> {
    // The broker checks the answer against the prompt it answers, field by field.
    this.nodes.answerPrompt(
      requireString(promptId, 'promptId', 200),
      requireObject(answer, 'answer') as unknown as PromptAnswer,
    );
    return Promise.resolve();
  }
}
