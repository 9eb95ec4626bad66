export { DiagnosticsServiceImpl, diagnosticsNode, type DiagnosticsOptions } from './service';
