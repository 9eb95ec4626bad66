/** The runtimes discovered on this machine, as of the last discovery, and what it said. */
import type { DiscoveryReport } from '../../../../shared/contract';
import { toAppErrorData } from '../../../../shared/errors';
import type { DiscoveredEndpoint, DiscoverySource } from '../../../../shared/model';
import type { DiscoveryOptions, DiscoveryResult } from '../../base/connect';
import { discoveredNodeId } from './entries';

export class LocalDiscovery {
  private found: readonly DiscoveredEndpoint[] = [];
  private sources: readonly DiscoverySource[] = [];
  private warnings: readonly string[] = [];

  constructor(
    private readonly discover: (options: DiscoveryOptions) => Promise<DiscoveryResult>,
    private readonly env: Readonly<Record<string, string | undefined>> | undefined,
  ) {}

  get endpoints(): readonly DiscoveredEndpoint[] {
    return this.found;
  }

  /** The ids of the discovered nodes. */
  nodeIds(): string[] {
    return this.found.map((endpoint) => discoveredNodeId(endpoint.endpoint));
  }

  /** Discovers again; resolves with the nodes that may have come, gone or changed. */
  async run(): Promise<string[]> {
    const before = this.nodeIds();
    try {
      const result = await this.discover({ ...(this.env !== undefined && { env: this.env }) });
      this.found = result.endpoints;
      this.sources = result.sources;
      this.warnings = result.warnings;
    } catch (error) {
      this.warnings = [`Discovery failed: ${toAppErrorData(error).message}`];
    }
    return [...new Set([...before, ...this.nodeIds()])];
  }

  report(otherWarnings: readonly string[]): DiscoveryReport {
    return {
      endpoints: this.found,
      warnings: [...otherWarnings, ...this.warnings],
      sources: this.sources,
    };
  }
}
