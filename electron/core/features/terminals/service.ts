import type { CallContext, EventSource, ServiceHandler } from '../../../../shared/contract';
import { AppError, isAppError, toAppErrorData } from '../../../../shared/errors';
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

  // The notifications. Their failures go to the terminal's pane as a `notice`; one that
  // names no terminal (or not as a string) has no pane to tell, and throws for the log.
  write(terminalId: string, data: Uint8Array): void {
    const id = requireString(terminalId, 'terminalId');
    this.notifying(id, () => this.terminals.write(id, inputBytes(data)));
  }

  resize(terminalId: string, cols: number, rows: number): void {
    const id = requireString(terminalId, 'terminalId');
    this.notifying(id, () =>
      this.terminals.resize(id, requireDimension(cols, 'cols'), requireDimension(rows, 'rows')),
    );
  }

  ack(terminalId: string, bytes: number): void {
    const id = requireString(terminalId, 'terminalId');
    this.notifying(id, () => this.terminals.ack(id, requireNonNegativeInteger(bytes, 'bytes')));
  }

  close(terminalId: string): Promise<void> {
    this.terminals.close(requireString(terminalId, 'terminalId'));
    return Promise.resolve();
  }

  private notifying(terminalId: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      const refused = isAppError(error) ? error : new AppError(toAppErrorData(error));
      if (this.terminals.find(terminalId) === undefined) throw refused;
      this.terminals.notice(terminalId, refused);
    }
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
