/**
 * "Copy as crictl": the crictl command that runs a request on each node, one line per
 * node (crictl talks to one runtime). A label term crictl can't express (`!=`, existence)
 * or a chosen set of containers is said in a note beside the line.
 */
import { parseLabelSelector } from '../../../../shared/label-selector';
import type { FanoutRequest, FanoutMethod } from '../../../../shared/model';
import { crictlCommand, type CrictlTarget } from '../resources/crictl';

export interface CrictlLine {
  readonly nodeId: string;
  readonly command: string;
  readonly note?: string;
}

export function fanoutCrictlLines(
  request: FanoutRequest & { readonly timeoutSeconds: number },
  method: FanoutMethod,
  nodeIds: readonly string[],
  target: (nodeId: string) => CrictlTarget,
): CrictlLine[] {
  const sync = method.method === 'exec-sync';
  const { targets, command, timeoutSeconds } = request;
  if (targets.kind === 'selection') {
    // crictl takes one container id per exec: one line each, run one after another.
    return [...new Set(targets.containers.map((ref) => ref.nodeId))].map((nodeId) => ({
      nodeId,
      command: targets.containers
        .filter((ref) => ref.nodeId === nodeId)
        .map((ref) =>
          crictlCommand(target(nodeId), {
            kind: 'exec-one',
            id: ref.containerId,
            sync,
            timeoutSeconds,
            command,
          }),
        )
        .join('\n'),
      note: 'crictl runs a chosen set one container at a time.',
    }));
  }
  let labels: Record<string, string> | undefined;
  let note: string | undefined;
  if (targets.kind === 'labels') {
    const terms = parseLabelSelector(targets.selector);
    labels = {};
    const left: string[] = [];
    for (const term of terms) {
      if (term.op === 'equals') labels[term.key] = term.value;
      else
        left.push(
          term.op === 'exists'
            ? term.key
            : term.op === 'absent'
              ? `!${term.key}`
              : `${term.key}!=${term.value}`,
        );
    }
    if (left.length > 0) {
      note = `crictl's --label takes key=value only: without ${left.join(', ')} it runs on more containers.`;
    }
  }
  return nodeIds.map((nodeId) => ({
    nodeId,
    command: crictlCommand(target(nodeId), {
      kind: 'exec-many',
      ...(labels !== undefined && { labels }),
      ...(targets.kind === 'name' && { name: targets.pattern }),
      sync,
      timeoutSeconds,
      command,
    }),
    ...(note !== undefined && { note }),
  }));
}
