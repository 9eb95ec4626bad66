import type { ISearchOptions } from '@xterm/addon-search';
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Icon } from '../../ui/icons';
import { MatchToggles } from '../../ui/view/Toolbar';
import type { TerminalPane } from './pane';
import type { TerminalColors } from './theme';

function searchOptions(
  colors: TerminalColors,
  caseSensitive: boolean,
  regex: boolean,
  incremental: boolean,
): ISearchOptions {
  return {
    caseSensitive,
    regex,
    incremental,
    decorations: {
      matchBackground: colors.match,
      matchOverviewRuler: colors.match,
      activeMatchBackground: colors.activeMatch,
      activeMatchColorOverviewRuler: colors.activeMatch,
    },
  };
}

/** Find in the scrollback: Enter for the next match, Shift+Enter the previous, Esc closes. */
/** One of the bar's icon buttons; its tooltip names it with its key. */
function BarButton({
  label,
  title = label,
  keys,
  onClick,
  children,
}: {
  label: string;
  title?: string;
  keys: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="term-icon-button"
      title={`${title} (${keys})`}
      aria-label={label}
      onClick={onClick}
    >
      {children}
    </button>
  );
}

export function FindBar({ pane, onClose }: { pane: TerminalPane; onClose: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [regex, setRegex] = useState(false);
  const [results, setResults] = useState<{ index: number; count: number } | undefined>();

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
    const subscription = pane.search.onDidChangeResults(({ resultIndex, resultCount }) =>
      setResults({ index: resultIndex, count: resultCount }),
    );
    return () => {
      subscription.dispose();
      pane.search.clearDecorations();
    };
  }, [pane]);

  // Typing searches as you go, from where the last match was.
  useEffect(() => {
    if (query === '') {
      pane.search.clearDecorations();
      setResults(undefined);
      return;
    }
    try {
      pane.search.findNext(query, searchOptions(pane.colors, caseSensitive, regex, true));
    } catch {
      setResults({ index: -1, count: 0 }); // an unfinished regular expression
    }
  }, [pane, query, caseSensitive, regex]);

  const find = (backwards: boolean): void => {
    if (query === '') return;
    const options = searchOptions(pane.colors, caseSensitive, regex, false);
    try {
      if (backwards) pane.search.findPrevious(query, options);
      else pane.search.findNext(query, options);
    } catch {
      setResults({ index: -1, count: 0 });
    }
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter') {
      event.preventDefault();
      find(event.shiftKey);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };

  const count =
    query === '' || results === undefined
      ? ''
      : results.count === 0
        ? 'No results'
        : results.index < 0
          ? `${results.count} found`
          : `${results.index + 1} of ${results.count}`;

  return (
    <div className="term-find" role="search" aria-label="Find in the terminal">
      <input
        ref={input}
        className="input"
        type="search"
        aria-label="Find"
        placeholder="Find"
        spellCheck={false}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <span
        className="term-find-count"
        aria-live="polite"
        data-empty={results?.count === 0 && query !== ''}
      >
        {count}
      </span>
      <MatchToggles
        className="term-toggle"
        caseSensitive={caseSensitive}
        regex={regex}
        onCaseSensitive={setCaseSensitive}
        onRegex={setRegex}
      />
      <BarButton label="Previous match" keys="Shift+Enter" onClick={() => find(true)}>
        <Icon name="chevronDown" size={14} className="term-flip" />
      </BarButton>
      <BarButton label="Next match" keys="Enter" onClick={() => find(false)}>
        <Icon name="chevronDown" size={14} />
      </BarButton>
      <BarButton label="Close find" title="Close" keys="Esc" onClick={onClose}>
        <Icon name="close" size={14} />
      </BarButton>
    </div>
  );
}
