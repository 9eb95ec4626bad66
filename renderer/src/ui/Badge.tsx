import { memo, type ReactNode } from 'react';

export type Tone = 'ok' | 'warn' | 'danger' | 'info' | 'neutral';

export function Badge({
  tone,
  children,
  busy = false,
  plain = false,
  title,
}: {
  tone: Tone;
  children: ReactNode;
  busy?: boolean;
  /** Without the status dot, for counts and tags. */
  plain?: boolean;
  title?: string;
}) {
  const classes = ['badge', tone, busy ? 'busy' : '', plain ? 'plain' : ''].filter(Boolean);
  return (
    <span className={classes.join(' ')} title={title}>
      {children}
    </span>
  );
}

const stateTones: Readonly<Record<string, Tone>> = {
  running: 'ok',
  ready: 'ok',
  connected: 'ok',
  created: 'info',
  connecting: 'info',
  reconnecting: 'warn',
  exited: 'neutral',
  notready: 'warn',
  disconnected: 'neutral',
  failed: 'danger',
  unknown: 'warn',
};

const stateLabels: Readonly<Record<string, string>> = {
  notready: 'not ready',
};

/** A resource or node state, coloured the same way everywhere. */
export const StateBadge = memo(function StateBadge({ state }: { state: string }) {
  return (
    <Badge
      tone={stateTones[state] ?? 'neutral'}
      busy={state === 'connecting' || state === 'reconnecting'}
    >
      {stateLabels[state] ?? state}
    </Badge>
  );
});
