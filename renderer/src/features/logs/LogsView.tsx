import { useEffect, useRef, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { useModel } from '../../app/context';
import { isEditableTarget } from '../../app/keyboard';
import { Button } from '../../ui/Button';
import { EmptyState, LoadingState } from '../../ui/EmptyState';
import { ErrorBanner, InfoBanner } from '../../ui/ErrorBanner';
import { formatCount } from '../../ui/format';
import { FilterField, MatchToggles } from '../../ui/view/Toolbar';
import { ContainerPicker, LabelPicker } from './ContainerPicker';
import { LogList } from './LogList';
import {
  logsControllerOf,
  searchLimit,
  type LogsController,
  type StreamChoice,
} from './logs-controller';
import { sourceColourClass } from './source-colour';
import './logs.css';

const tailChoices: readonly { readonly label: string; readonly value: number | undefined }[] = [
  { label: 'Last 100 lines', value: 100 },
  { label: 'Last 1,000 lines', value: 1000 },
  { label: 'Last 10,000 lines', value: 10_000 },
  { label: 'Last 100,000 lines', value: 100_000 },
  { label: 'Whole file', value: undefined },
];

const sinceChoices: readonly { readonly label: string; readonly value: number | undefined }[] = [
  { label: 'Any time', value: undefined },
  { label: 'Last 5 minutes', value: 300 },
  { label: 'Last 15 minutes', value: 900 },
  { label: 'Last hour', value: 3600 },
  { label: 'Last 6 hours', value: 6 * 3600 },
  { label: 'Last 24 hours', value: 24 * 3600 },
];

function OpenOptions({ controller }: { controller: LogsController }) {
  const options = useStore(controller.store, (state) => state.options);
  const opening = useStore(controller.store, (state) => state.phase === 'opening');
  return (
    <>
      <select
        className="select"
        aria-label="Lines"
        value={String(tailChoices.findIndex((choice) => choice.value === options.tailLines))}
        disabled={opening}
        onChange={(event) =>
          void controller.setOptions({ tailLines: tailChoices[Number(event.target.value)]?.value })
        }
      >
        {tailChoices.map((choice, index) => (
          <option key={choice.label} value={index}>
            {choice.label}
          </option>
        ))}
      </select>
      <select
        className="select"
        aria-label="Since"
        value={String(sinceChoices.findIndex((choice) => choice.value === options.sinceSeconds))}
        disabled={opening}
        onChange={(event) =>
          void controller.setOptions({
            sinceSeconds: sinceChoices[Number(event.target.value)]?.value,
          })
        }
      >
        {sinceChoices.map((choice, index) => (
          <option key={choice.label} value={index}>
            {choice.label}
          </option>
        ))}
      </select>
      <label
        className="checkbox"
        title="The container's previous attempt, like kubectl logs --previous"
      >
        <input
          type="checkbox"
          checked={options.previous}
          disabled={opening}
          onChange={(event) => void controller.setOptions({ previous: event.target.checked })}
        />
        Previous
      </label>
      <label className="checkbox" title="Keep reading what the container writes">
        <input
          type="checkbox"
          checked={options.follow}
          disabled={opening}
          onChange={(event) => void controller.setOptions({ follow: event.target.checked })}
        />
        Follow
      </label>
    </>
  );
}

/** A merged log's containers, each a toggle in its colour: which of them the view shows. */
function SourceFilter({ controller }: { controller: LogsController }) {
  const { sources, names, filter } = useStore(
    controller.store,
    useShallow((state) => ({
      sources: state.sources,
      names: state.sourceNames,
      filter: state.sourceFilter,
    })),
  );
  if (sources.length === 0) return null;
  return (
    <div className="log-sources" role="group" aria-label="Containers shown">
      {sources.map((source, i) => (
        <button
          key={`${source.nodeId}/${source.containerId}`}
          type="button"
          className={`log-source-chip ${sourceColourClass(i)}`}
          aria-pressed={filter === undefined || filter.includes(i)}
          title={`${source.namespace ?? ''}/${source.podName ?? ''} › ${source.containerName}\n${source.path}`}
          onClick={() => controller.toggleSource(i)}
        >
          {names[i]}
        </button>
      ))}
    </div>
  );
}

function ViewOptions({ controller }: { controller: LogsController }) {
  const { streams, timestamps, fields, fieldFilterText } = useStore(
    controller.store,
    useShallow((state) => ({
      streams: state.streams,
      timestamps: state.timestamps,
      fields: state.fields,
      fieldFilterText: state.fieldFilterText,
    })),
  );
  return (
    <>
      <SourceFilter controller={controller} />
      <select
        className="select"
        aria-label="Streams"
        value={streams}
        onChange={(event) => controller.setStreams(event.target.value as StreamChoice)}
      >
        <option value="all">stdout and stderr</option>
        <option value="stdout">stdout only</option>
        <option value="stderr">stderr only</option>
      </select>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={timestamps}
          onChange={(event) => controller.setTimestamps(event.target.checked)}
        />
        Timestamps
      </label>
      <label className="checkbox" title="JSON and logfmt lines as level, message and fields">
        <input
          type="checkbox"
          checked={fields}
          onChange={(event) => controller.setFields(event.target.checked)}
        />
        Fields
      </label>
      <input
        className="input log-field-filter"
        type="text"
        aria-label="Filter on a field"
        placeholder="level=error"
        spellCheck={false}
        value={fieldFilterText}
        onChange={(event) => controller.setFieldFilterText(event.target.value)}
      />
    </>
  );
}

function SearchBar({ controller }: { controller: LogsController }) {
  const model = useModel();
  const search = useStore(controller.store, (state) => state.search);
  const input = useRef<HTMLInputElement>(null);
  const result = search.result;
  const count = result?.lines.length ?? 0;

  // Ctrl/Cmd+F and / search the log, wherever focus is (but in a field).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      const find = (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'f';
      const slash =
        event.key === '/' &&
        !isEditableTarget(event.target) &&
        model.ui.getState().singleKeyShortcuts;
      if (!find && !slash) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [model]);

  let status: ReactNode = null;
  if (search.error !== undefined) {
    status = (
      <span className="filter-error" role="alert" title={search.error.detail}>
        {search.error.message}
      </span>
    );
  } else if (search.busy && result === undefined) {
    status = <span className="muted">Searching…</span>;
  } else if (result !== undefined && search.text !== '') {
    status = (
      <span className="log-search-status" aria-live="polite">
        {result.total === 0
          ? 'No matches'
          : `${formatCount(search.current + 1)} of ${formatCount(result.total)}${result.truncated && result.total > count ? ` (first ${formatCount(searchLimit)} shown)` : ''}`}
      </span>
    );
  }

  return (
    <div className="log-search" role="search" aria-label="Search the log">
      <FilterField
        inputRef={input}
        label="Search the log"
        placeholder="Search the log…  ( / )"
        value={search.text}
        onFocus={() => controller.prepareSearch()}
        onChange={(text) => controller.setSearch({ text })}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            controller.step(event.shiftKey ? -1 : 1);
          } else if (event.key === 'Escape' && search.text !== '') {
            event.preventDefault();
            event.stopPropagation();
            controller.setSearch({ text: '' });
          }
        }}
      />
      <MatchToggles
        className="btn btn-small btn-ghost log-toggle"
        caseSensitive={search.caseSensitive}
        regex={search.regex}
        onCaseSensitive={(caseSensitive) => controller.setSearch({ caseSensitive })}
        onRegex={(regex) => controller.setSearch({ regex })}
      />
      <button
        type="button"
        className="btn btn-small btn-icon"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        disabled={count === 0}
        onClick={() => controller.step(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="btn btn-small btn-icon"
        aria-label="Next match"
        title="Next match (Enter)"
        disabled={count === 0}
        onClick={() => controller.step(1)}
      >
        ↓
      </button>
      {status}
    </div>
  );
}

function StatusBar({ controller }: { controller: LogsController }) {
  const state = useStore(
    controller.store,
    useShallow((s) => ({
      info: s.info,
      total: s.total,
      lineCount: s.lineCount,
      streams: s.streams,
      filtered: s.sourceFilter !== undefined || s.fieldFilter !== undefined,
      sources: s.sources,
      following: s.following,
      stick: s.stick,
      dropped: s.dropped,
      download: s.download,
      phase: s.phase,
    })),
  );
  if (state.info === undefined || state.phase !== 'open') return null;
  const shown =
    state.streams === 'all' && !state.filtered
      ? `${formatCount(state.total)} lines`
      : `${formatCount(state.total)} of ${formatCount(state.lineCount)} lines${state.streams === 'all' ? '' : ` (${state.streams})`}`;
  // A merged log reads several files: their count, and their paths on hover.
  const path =
    'path' in state.info
      ? state.info.path
      : `${state.sources.length} containers' logs, merged by time`;
  const pathTitle =
    'path' in state.info ? state.info.path : state.sources.map((s) => s.path).join('\n');
  return (
    <div className="log-status">
      <span className={state.following ? 'log-live' : 'muted'}>
        {state.following ? '● Following' : 'Not following'}
      </span>
      <span>{shown}</span>
      {state.dropped > 0 && (
        <span className="muted" title="Porthole keeps a bounded amount of a log in memory">
          {formatCount(state.dropped)} older lines dropped
        </span>
      )}
      <code className="log-path" title={pathTitle}>
        {path}
      </code>
      <span className="toolbar-spacer" />
      {!state.stick && (
        <Button small icon="chevronDown" onClick={() => controller.jumpToEnd()}>
          {state.following ? 'Follow new lines' : 'Go to end'}
        </Button>
      )}
      <Button
        small
        icon="download"
        disabled={state.download !== undefined}
        onClick={() => void controller.download()}
      >
        {state.download === undefined
          ? 'Download'
          : `Downloading… ${state.download.total === 0 ? 0 : Math.floor((state.download.saved / state.download.total) * 100)}%`}
      </Button>
    </div>
  );
}

function Problems({ controller }: { controller: LogsController }) {
  const { openError, followError, phase, following, options } = useStore(
    controller.store,
    useShallow((state) => ({
      openError: state.openError,
      followError: state.followError,
      phase: state.phase,
      following: state.following,
      options: state.options,
    })),
  );
  if (phase === 'failed' && openError !== undefined) {
    return (
      <ErrorBanner
        error={openError}
        title="Could not open the log"
        actions={
          <Button small icon="refresh" onClick={() => void controller.reopen()}>
            Retry
          </Button>
        }
      />
    );
  }
  if (phase === 'open' && followError !== undefined && !following) {
    return (
      <ErrorBanner
        tone="warn"
        error={followError}
        title="Stopped following the log"
        actions={
          <Button small icon="refresh" onClick={() => void controller.reopen()}>
            Reopen
          </Button>
        }
      />
    );
  }
  if (phase === 'open' && options.follow && !following) {
    return (
      <InfoBanner
        actions={
          <Button small icon="refresh" onClick={() => void controller.reopen()}>
            Reopen
          </Button>
        }
      >
        No longer following: the follow was stopped (from the session monitor).
      </InfoBanner>
    );
  }
  return null;
}

function Body({ controller }: { controller: LogsController }) {
  const { phase, target, total } = useStore(
    controller.store,
    useShallow((state) => ({ phase: state.phase, target: state.target, total: state.total })),
  );
  if (target === undefined) {
    return (
      <EmptyState icon="logs" title="No log open">
        Pick a container above, or open its logs from the Containers view (the Logs button in its
        details).
      </EmptyState>
    );
  }
  if (phase === 'opening') {
    return <LoadingState>Reading the log of {target.containerName}…</LoadingState>;
  }
  if (phase !== 'open') return null;
  return (
    <>
      <LogList controller={controller} />
      {total === 0 && (
        <div className="log-empty muted">The log is empty (in this view) so far.</div>
      )}
    </>
  );
}

/** A container's logs: the file the runtime writes, read through the core in windows. */
export function LogsView() {
  const model = useModel();
  const controller = logsControllerOf(model);
  return (
    <div className="view logs-view">
      <div className="toolbar" role="toolbar" aria-label="Log">
        <ContainerPicker controller={controller} />
        <LabelPicker controller={controller} />
        <OpenOptions controller={controller} />
        <span className="toolbar-divider" />
        <ViewOptions controller={controller} />
      </div>
      <div className="toolbar">
        <SearchBar controller={controller} />
      </div>
      <Problems controller={controller} />
      <Body controller={controller} />
      <StatusBar controller={controller} />
    </div>
  );
}
