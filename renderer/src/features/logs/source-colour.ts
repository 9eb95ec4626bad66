import type { MergedLogSource } from '../../../../shared/model';

/**
 * A merged log's sources as shown: their names (the container's, with its pod's when
 * they come from several pods, as a label selection does), and their colours: the n-th source of a merged log is drawn with the
 * n-th of the theme's eight log-source colours (--log-source-1…8 in tokens.css, each AA
 * on every row background in both themes). Sources come in a stable order (a pod's
 * containers by name), so a container keeps its colour when the log is opened again.
 */
const colours = 8;

export function sourceNames(sources: readonly MergedLogSource[]): string[] {
  const pods = new Set(sources.map((source) => `${source.nodeId}/${source.podName ?? ''}`));
  return sources.map((source) =>
    pods.size > 1 && source.podName !== undefined
      ? `${source.podName}/${source.containerName}`
      : source.containerName,
  );
}

export function sourceColourClass(source: number): string {
  return `log-source-${(source % colours) + 1}`;
}
