import type { CallContext, EventSource, ServiceHandler } from '../../../../shared/contract';
import type { LeftoverProcess, LeftoverRef, TerminalInfo } from '../../../../shared/model';
import {
  inputBytes,
  parseLeftoverProcess,
  parseLeftoverRef,
  parseOpenRequest,
  requireDimension,
  type TerminalManager,
} from './index';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import { toCallOptions } from '../nodes';

/** The `terminals` service: checks what the page sent, then asks the terminal manager. */
export class TerminalsServiceImpl implements ServiceHandler<'terminals'> {
  constructor(private readonly terminals: TerminalManager) {}

  async probeShell(
    nodeId: string,
    containerId: string,
    context?: CallContext,
  ): Promise<readonly string[]> {
    return await this.terminals.probeShell(
      requireString(nodeId, 'nodeId'),
      requireString(containerId, 'containerId', 256),
      toCallOptions(context?.signal).signal,
    );
  }

  async open(request: unknown, context?: CallContext): Promise<TerminalInfo> {
    return await this.terminals.open(
      parseOpenRequest(request),
      toCallOptions(context?.signal).signal,
    );
  }

  async write(terminalId: string, data: string, encoding?: 'utf8' | 'binary'): Promise<void> {
    const id = requireString(terminalId, 'terminalId');
    await this.terminals.write(id, inputBytes(data, encoding));
  }

  resize(terminalId: string, cols: number, rows: number): Promise<void> {
    this.terminals.resize(
      requireString(terminalId, 'terminalId'),
      requireDimension(cols, 'cols'),
      requireDimension(rows, 'rows'),
    );
    return Promise.resolve();
  }

  ack(terminalId: string, bytes: number): Promise<void> {
    this.terminals.ack(
      requireString(terminalId, 'terminalId'),
      requireNonNegativeInteger(bytes, 'bytes'),
    );
    return Promise.resolve();
  }

  close(terminalId: string): Promise<void> {
    this.terminals.close(requireString(terminalId, 'terminalId'));
    return Promise.resolve();
  }

  async findLeftover(
    ref: LeftoverRef,
    context?: CallContext,
  ): Promise<LeftoverProcess | undefined> {
    return await this.terminals.findLeftover(
      parseLeftoverRef(ref),
      toCallOptions(context?.signal).signal,
    );
  }

  async endLeftover(
    ref: LeftoverRef,
    process: LeftoverProcess,
    context?: CallContext,
  ): Promise<'terminated' | 'killed' | 'gone'> {
    return await this.terminals.endLeftover(
      parseLeftoverRef(ref),
      parseLeftoverProcess(process),
      toCallOptions(context?.signal).signal,
    );
  }
}

/** The `terminal` event: one terminal's output, then its exit. */
export function terminalEventSource(terminals: TerminalManager): EventSource['terminal'] {
  return (argument, sink) => {
    const terminalId = requireString(requireObject(argument, 'argument').terminalId, 'terminalId');
    return terminals.subscribe(terminalId, sink);
  };
}
