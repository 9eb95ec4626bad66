import type { EventSource, ServiceHandler } from '../../../../shared/contract';
import type { ForwardEntry, ForwardOptions, ForwardSpec } from '../../../../shared/model';
import { requireString } from '../../base/args';
import { parseForwardOptions, parseForwardSpec, type ForwardManager } from './index';

/**
 * The port-forwards view's service: arguments from the page are checked here (the
 * contract's types are only the caller's promise), the work is the manager's.
 */
export class ForwardsServiceImpl implements ServiceHandler<'forwards'> {
  constructor(private readonly manager: ForwardManager) {}

  async list(): Promise<readonly ForwardEntry[]> {
    await this.manager.ready;
    return this.manager.list();
  }

  async create(nodeId: string, spec: ForwardSpec, options?: ForwardOptions): Promise<ForwardEntry> {
    // Checked before anything starts: a bad argument rejects, it never throws.
    return this.manager.create(
      requireString(nodeId, 'nodeId'),
      parseForwardSpec(spec),
      parseForwardOptions(options),
    );
  }

  async start(forwardId: string): Promise<ForwardEntry> {
    return this.manager.start(requireString(forwardId, 'forwardId'));
  }

  async stop(forwardId: string): Promise<ForwardEntry> {
    return this.manager.stop(requireString(forwardId, 'forwardId'));
  }

  async restart(forwardId: string): Promise<ForwardEntry> {
    return this.manager.restart(requireString(forwardId, 'forwardId'));
  }

  async update(forwardId: string, options: ForwardOptions): Promise<ForwardEntry> {
    return this.manager.update(requireString(forwardId, 'forwardId'), parseForwardOptions(options));
  }

  async remove(forwardId: string): Promise<void> {
    return this.manager.remove(requireString(forwardId, 'forwardId'));
  }

  async move(forwardId: string, nodeId: string): Promise<ForwardEntry> {
    return this.manager.move(
      requireString(forwardId, 'forwardId'),
      requireString(nodeId, 'nodeId'),
    );
  }
}

/** The `forwards` event: the whole list on subscribe, then on every change. */
export function forwardsEventSource(manager: ForwardManager): EventSource['forwards'] {
  return (_argument, sink) => {
    let open = true;
    const subscription = manager.onDidChange((forwards) => sink.next(forwards));
    sink.next(manager.list());
    // Saved forwards are read from disk first: send the list again once they are in.
    manager.ready.then(
      () => {
        if (open) sink.next(manager.list());
      },
      () => undefined,
    );
    return {
      dispose: () => {
        open = false;
        subscription.dispose();
      },
    };
  };
}
