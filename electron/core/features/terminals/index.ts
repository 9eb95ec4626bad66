/** Exec and attach terminals: the core side of the terminal panes. */
export { TerminalManager, type TerminalManagerOptions } from './manager';
export { Terminal, type TerminalOptions } from './terminal';
export {
  OutputFlow,
  defaultFlowLimits,
  type FlowLimits,
  type OutputFlowOptions,
  type OutputStreamName,
  type TerminalExitEvent,
} from './output-flow';
export {
  inputBytes,
  maxWriteLength,
  parseLeftoverProcess,
  parseLeftoverRef,
  parseOpenRequest,
  requireDimension,
} from './arguments';
export {
  attachSettings,
  runningContainer,
  type AttachSettings,
  type ContainerRefusals,
} from './container-facts';
export { probeShell } from './shell-probe';
export { describeEnding, closedEnding, type ClosedBy, type ContainerFate } from './exit-reason';
export { TerminalsServiceImpl, terminalEventSource } from './service';
