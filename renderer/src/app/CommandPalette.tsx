import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useModel } from './context';
import { fuzzyFilter } from './fuzzy';
import type { Command, CommandProvider } from './registry';
import { returnFocus } from '../ui/focus';

function highlight(text: string, positions: readonly number[]): ReactNode {
  if (positions.length === 0) return text;
  const marked = new Set(positions);
  const parts: ReactNode[] = [];
  let run = '';
  let runMarked = false;
  const flush = (key: number): void => {
    if (run === '') return;
    parts.push(runMarked ? <mark key={key}>{run}</mark> : run);
    run = '';
  };
  [...text].forEach((char, index) => {
    const isMarked = marked.has(index);
    if (isMarked !== runMarked) {
      flush(index);
      runMarked = isMarked;
    }
    run += char;
  });
  flush(text.length);
  return parts;
}

/**
 * Ctrl/Cmd+K: every navigation and action, fuzzy-filtered. Commands are gathered when
 * it opens, so they act on what was selected then.
 */
export function CommandPalette({
  providers,
  onClose,
}: {
  providers: readonly CommandProvider[];
  onClose: () => void;
}) {
  const model = useModel();
  const listId = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const commands = useMemo<readonly Command[]>(
    () => providers.flatMap((provider) => provider(model)),
    [providers, model],
  );
  const matches = useMemo(
    () => fuzzyFilter(commands, query, (command) => command.title),
    [commands, query],
  );

  useEffect(() => {
    const previous = document.activeElement;
    input.current?.focus();
    return () => returnFocus(previous);
  }, []);

  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const run = (command: Command | undefined): void => {
    if (command === undefined) return;
    onClose();
    command.run();
  };

  const optionId = (index: number): string => `${listId}-option-${index}`;

  return (
    <div
      className="dialog-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette">
        <input
          ref={input}
          className="palette-input"
          aria-label="Command"
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={matches.length > 0 ? optionId(active) : undefined}
          placeholder="Type a command or a place to go…"
          spellCheck={false}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            switch (event.key) {
              case 'ArrowDown':
                setActive((index) => Math.min(matches.length - 1, index + 1));
                break;
              case 'ArrowUp':
                setActive((index) => Math.max(0, index - 1));
                break;
              case 'Enter':
                run(matches[active]?.item);
                break;
              case 'Escape':
                onClose();
                break;
              case 'Tab':
                break; // Keep focus in the palette: it is modal.
              default:
                return;
            }
            event.preventDefault();
            event.stopPropagation();
          }}
        />
        <ul ref={list} id={listId} className="palette-list" role="listbox" aria-label="Commands">
          {matches.map(({ item, match }, index) => (
            <li
              key={item.id}
              id={optionId(index)}
              data-index={index}
              className="palette-item"
              role="option"
              aria-selected={index === active}
              onMouseMove={() => setActive(index)}
              onClick={() => run(item)}
            >
              <span className="palette-group">{item.group}</span>
              <span className="palette-title">{highlight(item.title, match.positions)}</span>
              {item.shortcut !== undefined && <kbd>{item.shortcut}</kbd>}
            </li>
          ))}
        </ul>
        {matches.length === 0 && (
          <div className="palette-empty" role="status">
            No command matches “{query}”.
          </div>
        )}
        <div className="palette-footer" aria-hidden>
          <span>
            <kbd>↑</kbd>
            <kbd>↓</kbd> choose
          </span>
          <span>
            <kbd>Enter</kbd> run
          </span>
          <span>
            <kbd>Esc</kbd> close
          </span>
        </div>
      </div>
    </div>
  );
}
