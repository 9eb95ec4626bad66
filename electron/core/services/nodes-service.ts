import type { CallContext, DiscoveryReport, ServiceHandler } from '../../../shared/contract';
import type {
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  PromptAnswer,
} from '../../../shared/model';
import { requireObject, requireString } from './args';
import type { NodeManager } from './nodes';

export class NodesServiceImpl implements ServiceHandler<'nodes'> {
  constructor(private readonly nodes: NodeManager) {}

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

  removeProfile(nodeId: string): Promise<void> {
    return this.nodes.removeProfile(requireString(nodeId, 'nodeId'));
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
