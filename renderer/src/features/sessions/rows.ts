/**
 * Sessions as the monitor shows them: rows with the text the filter searches, the filter
 * itself, and the few words and numbers each cell needs. Pure, tested without a DOM.
 */
import type {
  SessionAttempt,
  SessionKind,
  SessionSnapshot,
  SessionStateName,
  SessionTransport,
} from '../../../../shared/model';
import type { Tone } from '../../ui/Badge';

export type Liveness = 'all' | 'live' | 'ended';

export interface SessionFilter {
  readonly text: string;
  /** Empty for every kind. */
  readonly kind: SessionKind | '';
  readonly liveness: Liveness;
}

export const emptySessionFilter: SessionFilter = { text: '', kind: '', liveness: 'all' };

export interface SessionRow {
  readonly key: string;
  readonly session: SessionSnapshot;
  readonly live: boolean;
  readonly search: string;
}

export const kindLabels: Readonly<Record<SessionKind, string>> = {
  exec: 'Exec',
  attach: 'Attach',
  'port-forward': 'Port forward',
  logs: 'Logs',
  transfer: 'Transfer',
};

export const sessionKinds: readonly SessionKind[] = [
  'exec',
  'attach',
  'port-forward',
  'logs',
  'transfer',
];

export const sessionStateTones: Readonly<Record<SessionStateName, Tone>> = {
  starting: 'info',
  active: 'ok',
  reconnecting: 'warn',
  ended: 'neutral',
  failed: 'danger',
};

const transportLabels: Readonly<Record<SessionTransport, string>> = {
  spdy: 'SPDY',
  websocket: 'WebSocket',
  file: 'File',
  sftp: 'SFTP',
};

export function isLive(session: SessionSnapshot): boolean {
  return session.state !== 'ended' && session.state !== 'failed';
}

/** `SPDY · portforward.k8s.io`, or `—` before the transport is known. */
export function describeTransport(session: SessionSnapshot): string {
  if (session.transport === undefined) return '—';
  const label = transportLabels[session.transport];
  return session.protocol === undefined ? label : `${label} · ${session.protocol}`;
}

/** One line per attempt: `SPDY refused (HTTP 403): …` — the tooltip of the transport cell. */
export function describeAttempt(attempt: SessionAttempt): string {
  const parts = [`${transportLabels[attempt.transport]} ${attempt.outcome}`];
  if (attempt.status !== undefined) parts.push(`(HTTP ${attempt.status})`);
  if (attempt.durationMs > 0) parts.push(`in ${Math.round(attempt.durationMs)} ms`);
  const head = parts.join(' ');
  return attempt.message === undefined ? head : `${head}: ${attempt.message}`;
}

/** A fallback happened: an attempt before the one that worked did not succeed. */
export function fellBack(session: SessionSnapshot): boolean {
  return session.attempts.some((attempt) => attempt.outcome !== 'ok');
}

/** What ended it: the exit code when there is one, else the reason. */
export function outcomeOf(session: SessionSnapshot): string {
  if (session.exitCode !== undefined) return `exit ${session.exitCode}`;
  return session.stateReason ?? '';
}

export function sessionRows(sessions: readonly SessionSnapshot[]): SessionRow[] {
  return sessions.map((session) => ({
    key: session.id,
    session,
    live: isLive(session),
    search: [
      session.kind,
      kindLabels[session.kind],
      session.nodeName,
      session.target.description,
      session.target.containerName ?? '',
      session.detail ?? '',
      session.transport ?? '',
      session.protocol ?? '',
      session.state,
      session.stateReason ?? '',
      session.limitation ?? '',
      session.exitCode === undefined ? '' : `exit ${session.exitCode}`,
    ]
      .join(' ')
      .toLowerCase(),
  }));
}

export function filterSessions(
  rows: readonly SessionRow[],
  filter: SessionFilter,
): readonly SessionRow[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0 && filter.kind === '' && filter.liveness === 'all') return rows;
  return rows.filter(
    (row) =>
      (filter.kind === '' || row.session.kind === filter.kind) &&
      (filter.liveness === 'all' || row.live === (filter.liveness === 'live')) &&
      words.every((word) => row.search.includes(word)),
  );
}

export function isFiltered(filter: SessionFilter): boolean {
  return filter.text.trim() !== '' || filter.kind !== '' || filter.liveness !== 'all';
}

/** `4s`, `1m 05s`, `2h 03m`: how long a session ran (or has run so far). */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${String(hours % 24).padStart(2, '0')}h`;
}
