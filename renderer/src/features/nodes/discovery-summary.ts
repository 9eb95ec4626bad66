import type { DiscoveryReport } from '../../../../shared/contract';

/** What one Discover did, in words: what it found, or every place it looked. */
export interface DiscoverySummary {
  /** The runtimes that answered, by where they came from ("lab containerd-2", "containerd"). */
  readonly found: readonly { readonly endpoint: string; readonly name: string }[];
  /** The variables, files and sockets it read or probed, each with what it found there. */
  readonly lookedAt: readonly { readonly where: string; readonly outcome: string }[];
  /** The lab's state file Discover reads, when it read one. */
  readonly labStateFile?: string;
}

const sourceOutcomes = {
  environment: { used: 'set', unset: 'not set', empty: 'empty', invalid: 'not usable' },
  'crictl-config': {
    used: 'names a runtime',
    unset: 'not there',
    empty: 'names no runtime-endpoint',
    invalid: 'not usable',
  },
  lab: {
    used: 'the lab is up',
    unset: 'not there: the lab is not up',
    empty: 'lists no runtime',
    invalid: 'ignored',
  },
  explicit: { used: 'set', unset: 'not set', empty: 'empty', invalid: 'not usable' },
} as const;

const probeOutcomes = {
  ready: 'a runtime answered',
  absent: 'no socket',
  refused: 'refused',
  error: 'no runtime answered',
} as const;

/** `nameOf`: what the node list calls the node at an endpoint, if it lists it. */
export function summarizeDiscovery(
  report: DiscoveryReport,
  nameOf: (endpoint: string) => string | undefined = () => undefined,
): DiscoverySummary {
  const found = report.endpoints
    .filter((endpoint) => endpoint.probe.state === 'ready')
    .map((endpoint) => ({
      endpoint: endpoint.endpoint,
      name: nameOf(endpoint.endpoint) ?? endpoint.origin,
    }));
  const lookedAt = [
    ...report.sources.map((source) => ({
      where: source.where,
      outcome: sourceOutcomes[source.source][source.outcome],
    })),
    ...report.endpoints.map((endpoint) => ({
      where: endpoint.endpoint.replace(/^unix:\/\//, ''),
      outcome: probeOutcomes[endpoint.probe.state],
    })),
  ];
  const lab = report.sources.find((source) => source.source === 'lab');
  return { found, lookedAt, ...(lab !== undefined && { labStateFile: lab.where }) };
}

/** `npm run lab -- up`, with the lab directory when Porthole reads another than the default. */
export function labUpCommand(labStateFile: string | undefined): string {
  const dir = labStateFile?.replace(/\/lab\.json$/, '');
  return dir === undefined || dir === '/tmp/porthole-lab'
    ? 'npm run lab -- up'
    : `PORTHOLE_LAB_DIR=${dir} npm run lab -- up`;
}
