import type { DiagnosticsReport } from '../../../../shared/model';

/** Where the renderer runs, which the core can't know. */
export interface RendererFacts {
  readonly mode: 'electron' | 'browser';
  /** The browser's user agent, in browser mode. */
  readonly userAgent?: string;
}

const modeNames = { electron: 'desktop app', browser: 'browser mode' } as const;

/**
 * The report a bug needs, as plain text to paste into an issue: versions, nodes (name,
 * kind, state, runtime) and capabilities. The core's report holds no endpoint, user or
 * credential, and nothing is added here that could.
 */
export function formatReport(report: DiagnosticsReport, renderer: RendererFacts): string {
  const { node, v8, electron, chrome } = report.versions;
  const runtimes = [
    electron !== undefined && `Electron ${electron}`,
    chrome !== undefined && `Chrome ${chrome}`,
    node !== undefined && `Node ${node}`,
    v8 !== undefined && `V8 ${v8}`,
    `${report.platform} ${report.arch}`,
  ].filter(Boolean);
  const lines = [
    `Porthole ${report.appVersion} (${modeNames[renderer.mode]})`,
    `Core: ${runtimes.join(', ')}`,
    ...(renderer.userAgent !== undefined ? [`Browser: ${renderer.userAgent}`] : []),
    `Report made ${new Date(report.generatedAt).toISOString()}`,
    '',
    `Nodes (${report.nodes.length})`,
  ];
  if (report.nodes.length === 0) lines.push('- none');
  for (const entry of report.nodes) {
    const runtime =
      entry.runtime !== undefined
        ? `${entry.runtime.name} ${entry.runtime.version}, CRI ${entry.runtime.criVersion}`
        : 'runtime unknown';
    const updates = entry.updates !== undefined ? `, updates by ${entry.updates}` : '';
    lines.push(`- ${entry.name}: ${entry.kind}, ${entry.state}; ${runtime}${updates}`);
    if (entry.capabilities !== undefined) {
      const capabilities = Object.entries(entry.capabilities).map(
        ([name, state]) => `${name} ${state}`,
      );
      lines.push(`  capabilities: ${capabilities.join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
