import { useEffect } from 'react';
import { useStore } from 'zustand';
import { Icon } from '../../ui/icons';
import { playbackSpeeds, type CastPlayer } from './player';
import { PaneButton } from './TerminalPaneView';
import { useTerminalsFeature } from './use-terminals';
import { XtermHost } from './XtermHost';

function clock(seconds: number): string {
  const whole = Math.floor(seconds);
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

function PlayerControls({ player }: { player: CastPlayer }) {
  const playing = useStore(player.status, (status) => status.playing);
  const position = useStore(player.status, (status) => status.position);
  const duration = useStore(player.status, (status) => status.duration);
  const speed = useStore(player.status, (status) => status.speed);
  return (
    <div className="term-player-controls">
      <button
        type="button"
        className="btn btn-small"
        aria-label={playing ? 'Pause' : 'Play'}
        title={`${playing ? 'Pause' : 'Play'} (Space)`}
        onClick={() => player.toggle()}
      >
        <Icon name={playing ? 'stop' : 'play'} size={14} />
        {playing ? 'Pause' : 'Play'}
      </button>
      <PaneButton icon="refresh" label="From the start" onClick={() => player.seek(0)} />
      <input
        type="range"
        aria-label="Position"
        min={0}
        max={Math.max(duration, 0.001)}
        step={0.1}
        value={position}
        onChange={(event) => player.seek(Number(event.target.value))}
      />
      <span className="term-player-time">
        {clock(position)} / {clock(duration)}
      </span>
      <select
        className="select"
        aria-label="Speed"
        value={speed}
        onChange={(event) => player.setSpeed(Number(event.target.value))}
      >
        {playbackSpeeds.map((choice) => (
          <option key={choice} value={choice}>
            {choice}×
          </option>
        ))}
      </select>
    </div>
  );
}

/** A recording played back into a read-only terminal. */
export function PlayerPane({ player, active }: { player: CastPlayer; active: boolean }) {
  const feature = useTerminalsFeature();
  useEffect(() => {
    if (active) player.focus();
  }, [active, player]);
  return (
    <section
      className="term-pane"
      data-active={active}
      aria-label={`Replay ${player.title}`}
      onMouseDownCapture={() => {
        if (!active) feature.focusPane(player.paneId);
      }}
    >
      <header className="term-pane-header">
        <Icon name="play" size={14} />
        <span className="term-pane-title" title={player.title}>
          Replay · {player.title}
        </span>
        <span className="term-size">
          {player.cast.header.width}×{player.cast.header.height}
        </span>
        <PlayerControls player={player} />
        <div className="term-pane-actions">
          <PaneButton
            icon="close"
            label="Close replay"
            onClick={() => feature.closePane(player.paneId)}
          />
        </div>
      </header>
      <div className="term-body term-player-body">
        <XtermHost content={player} onAttached={() => feature.paneAttached(player.paneId)} />
      </div>
    </section>
  );
}
