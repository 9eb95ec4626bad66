/** A log view's lines as text, for a download. */
import type { LogLine } from '../../../../shared/model';
import type { LogTarget } from './log-types';

const pageLines = 10_000;

type ReadPage = (
  from: number,
  count: number,
) => Promise<{ readonly lines: readonly LogLine[]; readonly total: number }>;

/**
 * Fetched a page at a time (as the list does, never all at once over the wire), each line
 * as the view shows it: its timestamp if shown, and a merged log's container name.
 */
export async function collectLogText(
  read: ReadPage,
  shown: { readonly timestamps: boolean; readonly names: readonly string[] },
  onProgress?: (saved: number, total: number) => void,
): Promise<string> {
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const page = await read(from, pageLines);
    for (const line of page.lines) {
      const name = line.source === undefined ? undefined : shown.names[line.source];
      const text = name === undefined ? line.text : `${name} ${line.text}`;
      parts.push(shown.timestamps && line.timeText !== '' ? `${line.timeText} ${text}` : text);
    }
    from += page.lines.length;
    onProgress?.(from, page.total);
    if (page.lines.length === 0 || from >= page.total) break;
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}

/** `pod_container.log`, `pod_all-containers.log`, `…_previous.log`. */
export function logFileName(target: LogTarget, previous: boolean): string {
  const name = target.merged === undefined ? target.containerName : 'all-containers';
  return `${target.podName === undefined ? '' : `${target.podName}_`}${name}${previous ? '_previous' : ''}.log`;
}
