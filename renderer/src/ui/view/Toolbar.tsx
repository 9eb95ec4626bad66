import type { KeyboardEvent, ReactNode, Ref } from 'react';
import { Button } from '../Button';
import { Icon } from '../icons';

/**
 * The bar above a view's table or chart: its filters (a `search` landmark) or its controls
 * (a `toolbar`), then, at the right, its status and actions.
 */
export function Toolbar({
  label,
  role = 'search',
  children,
}: {
  label: string;
  role?: 'search' | 'toolbar';
  children: ReactNode;
}) {
  return (
    <div className="toolbar" role={role} aria-label={label}>
      {children}
    </div>
  );
}

/** The free-text filter (or search) box, with its magnifier. */
export function FilterField({
  label,
  placeholder,
  value,
  onChange,
  inputRef,
  onKeyDown,
  onFocus,
}: {
  /** Its accessible name: "Filter pods by text". */
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  inputRef?: Ref<HTMLInputElement>;
  onKeyDown?: (event: KeyboardEvent<HTMLInputElement>) => void;
  onFocus?: () => void;
}) {
  return (
    <div className="search-field">
      <Icon name="search" size={14} />
      <input
        ref={inputRef}
        className="input"
        type="search"
        placeholder={placeholder}
        aria-label={label}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={onKeyDown}
        onFocus={onFocus}
      />
    </div>
  );
}

export interface FilterChoice<V extends string> {
  readonly value: V;
  readonly label: string;
}

/** A filter by one property (state, kind, namespace…), its first choice "all". */
export function SelectFilter<V extends string>({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: V;
  choices: readonly FilterChoice<V>[];
  onChange: (value: V) => void;
}) {
  return (
    <select
      className="select"
      aria-label={label}
      value={value}
      onChange={(event) => {
        const chosen = choices.find((choice) => choice.value === event.target.value);
        if (chosen !== undefined) onChange(chosen.value);
      }}
    >
      {choices.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

/** Resets every filter of the view: shown only while one is set. */
export function ClearFilters({ onClear }: { onClear: () => void }) {
  return (
    <Button small variant="ghost" onClick={onClear}>
      Clear
    </Button>
  );
}

/**
 * The right-hand end of a toolbar: what the view shows ("3 of 12 pods"), announced as it
 * changes, unless `live` is off (a status that only repeats settings).
 */
export function ToolbarStatus({ children, live = true }: { children: ReactNode; live?: boolean }) {
  return (
    <>
      <span className="toolbar-spacer" />
      <span className="toolbar-status" aria-live={live ? 'polite' : undefined}>
        {children}
      </span>
    </>
  );
}

/**
 * A find bar's "Match case" and "Regular expression" toggles (the terminal's and the
 * log's), pressed while on. `className` is the bar's own button style.
 */
export function MatchToggles({
  className,
  caseSensitive,
  regex,
  onCaseSensitive,
  onRegex,
}: {
  className: string;
  caseSensitive: boolean;
  regex: boolean;
  onCaseSensitive: (on: boolean) => void;
  onRegex: (on: boolean) => void;
}) {
  return (
    <>
      <button
        type="button"
        className={className}
        aria-pressed={caseSensitive}
        title="Match case"
        onClick={() => onCaseSensitive(!caseSensitive)}
      >
        Aa
      </button>
      <button
        type="button"
        className={className}
        aria-pressed={regex}
        title="Regular expression"
        onClick={() => onRegex(!regex)}
      >
        .*
      </button>
    </>
  );
}
