/**
 * How a node that lost its runtime (or its SSH connection) and is reconnecting by itself
 * is shown: the same words on its card and above every list and chart that would show its
 * rows. Its rows are hidden meanwhile, with a count ("its 12 pods are hidden"): last-known
 * rows look like live ones, and acting on them could only fail.
 */
import type { NodeStatus } from '../../../../shared/model';
import { useModel, useNodes } from '../../app/context';
import { useNow } from '../../ui/clock';
import { InfoBanner } from '../../ui/ErrorBanner';
import { formatAge, formatClock, formatCount } from '../../ui/format';
import { Button } from '../../ui/Button';
import { connectNode } from './actions';
import { downNodesInScope } from './nodes-store';

/**
 * "lab-2 is down since 18:14:05 and Porthole is reconnecting"; "is not answering" for a
 * runtime that takes calls but answers none (frozen, overloaded). Over SSH the outage may
 * not be known yet (the SSH connection dropped first): then without the time.
 */
export function downTitle(node: NodeStatus): string {
  const since = node.outage?.since;
  const how = node.outage?.kind === 'not-answering' ? 'is not answering' : 'is down';
  return since === undefined
    ? `${node.name} ${how} and Porthole is reconnecting`
    : `${node.name} ${how} since ${formatClock(since)} and Porthole is reconnecting`;
}

/** "Attempt 4, the next in 3 s." — or, over SSH, what the SSH connection is doing. */
export function attemptText(node: NodeStatus, now: number): string {
  const outage = node.outage;
  if (outage === undefined) {
    return node.ssh?.state === 'reconnecting'
      ? `SSH reconnecting (attempt ${node.ssh.attempt}): ${node.ssh.reason}`
      : 'Reconnecting…';
  }
  const wait = Math.ceil((outage.nextAttemptAt - now) / 1000);
  const next = wait > 0 ? `the next in ${wait} s` : 'trying now';
  return `Attempt ${outage.attempt}, ${next}.`;
}

/** "as of 18:14:05": runtime facts a reconnecting node last reported. */
export function asOfText(node: NodeStatus, now: number): string | undefined {
  if (node.runtimeAsOf === undefined) return undefined;
  return `as of ${formatClock(node.runtimeAsOf)} (${formatAge(node.runtimeAsOf, now)} ago)`;
}

/** Connect now instead of at the next attempt (the node card's and the banners' button). */
export function RetryNowButton({ node }: { node: NodeStatus }) {
  const model = useModel();
  const pending = useNodes((state) => state.pending[node.nodeId]);
  return (
    <Button
      small
      icon="refresh"
      disabled={pending !== undefined}
      onClick={() => void connectNode(model, node)}
    >
      {pending === 'connecting' ? 'Retrying…' : 'Retry now'}
    </Button>
  );
}

/**
 * Above a list (or the stats) of a reconnecting node: that it is down, since when, what
 * Porthole is doing about it, and how many of its rows are hidden until it is back.
 */
export function NodeDownBanner({
  node,
  rows,
}: {
  node: NodeStatus;
  /**
   * A view's rows of this node that it holds but does not show, and what they are; the
   * node card has none.
   */
  rows?: { readonly hidden: number; readonly nouns: readonly [singular: string, plural: string] };
}) {
  const now = useNow();
  return (
    <InfoBanner tone="warn" actions={<RetryNowButton node={node} />}>
      <div className="banner-title">{downTitle(node)}</div>
      {rows !== undefined && <div>{hiddenText(rows.hidden, rows.nouns)}</div>}
      {node.error !== undefined && <div>{node.error.message}</div>}
      <div className="banner-hint muted">
        {attemptText(node, now)}
        {rows === undefined && node.error?.hint !== undefined ? ` ${node.error.hint}` : ''}
      </div>
    </InfoBanner>
  );
}

/** "Its 12 pods are hidden until it is back." */
export function hiddenText(hidden: number, nouns: readonly [string, string]): string {
  const [singular, plural] = nouns;
  if (hidden === 0) return `Its ${plural} show again once it is back.`;
  if (hidden === 1) return `Its ${singular} is hidden until it is back.`;
  return `Its ${formatCount(hidden)} ${plural} are hidden until it is back.`;
}

/**
 * A NodeDownBanner for each node in scope that is down, with how many of a view's rows
 * each holds back (`hidden`, by node id).
 */
export function DownNodeBanners({
  hidden,
  nouns,
}: {
  hidden: ReadonlyMap<string, number>;
  nouns: readonly [singular: string, plural: string];
}) {
  const nodes = useNodes((state) => state.nodes);
  const scope = useNodes((state) => state.scope);
  return (
    <>
      {downNodesInScope(nodes, scope).map((node) => (
        <NodeDownBanner
          key={node.nodeId}
          node={node}
          rows={{ hidden: hidden.get(node.nodeId) ?? 0, nouns }}
        />
      ))}
    </>
  );
}
