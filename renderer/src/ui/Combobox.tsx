import { useVirtualizer } from '@tanstack/react-virtual';
import {
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { Icon } from './icons';
import { useKeepRendered } from './keep-rendered';
import { rootTextScale } from './text-scale';
import './Combobox.css';

/**
 * Height of one option in pixels at the default text size; the list scales it with the
 * user's text size, in whole pixels, and draws each option that tall.
 */
const optionHeight = 30;
/** Options PageUp/PageDown move by. */
const pageSize = 8;

export interface ComboboxProps<T> {
  /** The input's id, for the `<label htmlFor>` the caller renders. */
  readonly id: string;
  /** What the input shows while the user isn't typing: the current choice. */
  readonly valueText: string;
  /** The current choice's key, marked in the list. */
  readonly valueKey: string | undefined;
  /** The options for what the user typed ('' for all), best first. Memoise it. */
  readonly search: (query: string) => readonly T[];
  readonly optionKey: (option: T) => string;
  /** The option's text: its accessible name. */
  readonly optionText: (option: T) => string;
  /** What the option shows; its text when absent. */
  readonly renderOption?: (option: T) => ReactNode;
  readonly onChoose: (option: T) => void;
  /** The status line under the options: "12 of 500 nodes", "No node matches “x”". */
  readonly describe: (shown: number, query: string) => string;
  readonly placeholder?: string;
  readonly className?: string;
  /** Names the list: "Nodes". */
  readonly listLabel: string;
}

/**
 * A searchable single choice, keyboard first: focus it and type to narrow the options,
 * ↑/↓ (PageUp/PageDown) to move, Enter to choose, Esc to leave it as it was. The ARIA 1.2
 * combobox pattern with a listbox popup, "list" autocomplete and manual selection; the
 * active option is `aria-activedescendant`, so focus stays in the input. The listbox is
 * virtualised (every option carries its position and the set's size), so a list of
 * thousands costs what a screenful does.
 */
export function Combobox<T>({
  id,
  valueText,
  valueKey,
  search,
  optionKey,
  optionText,
  renderOption,
  onChoose,
  describe,
  placeholder,
  className,
  listLabel,
}: ComboboxProps<T>) {
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  /** What the user typed since the list opened; undefined while not typing. */
  const [query, setQuery] = useState<string | undefined>();
  const [active, setActive] = useState(0);
  const options = useMemo(() => (open ? search(query ?? '') : []), [open, search, query]);
  // Read as the list opens: a text size change shows the next time it does.
  const optionPx = useMemo(
    () => (open ? Math.round(optionHeight * rootTextScale()) : optionHeight),
    [open],
  );

  const clamped = options.length === 0 ? -1 : Math.min(active, options.length - 1);
  const activeRef = useRef(active);
  activeRef.current = active;
  // The active option stays rendered even when scrolled out of view, so
  // aria-activedescendant never points at nothing.
  const rangeExtractor = useKeepRendered(clamped);
  const virtualizer = useVirtualizer({
    count: options.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => optionPx,
    overscan: 6,
    rangeExtractor,
  });
  // Sizes are cached per option: a new height re-lays them all out.
  useLayoutEffect(() => virtualizer.measure(), [optionPx, virtualizer]);

  useEffect(() => {
    if (open && clamped >= 0) virtualizer.scrollToIndex(clamped, { align: 'auto' });
  }, [open, clamped, virtualizer]);

  // The choice's text selected while the input has the focus, as on focus: what the user
  // types next starts a new search instead of appending to the name of the last choice.
  useLayoutEffect(() => {
    const field = input.current;
    if (!open && field !== null && field === document.activeElement) field.select();
  }, [open, valueText]);

  const openList = (at: 'current' | 'first' | 'last'): void => {
    const all = search('');
    const current = all.findIndex((option) => optionKey(option) === valueKey);
    setQuery(undefined);
    setActive(at === 'last' ? all.length - 1 : at === 'current' && current >= 0 ? current : 0);
    setOpen(true);
  };
  const close = (): void => {
    setOpen(false);
    setQuery(undefined);
  };
  const choose = (option: T | undefined): void => {
    if (option === undefined) return;
    close();
    onChoose(option);
  };
  const move = (by: number): void =>
    setActive((index) => Math.max(0, Math.min(options.length - 1, Math.max(0, index) + by)));

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case 'ArrowDown':
        if (!open) openList('current');
        else if (!event.altKey) move(1);
        break;
      case 'ArrowUp':
        if (!open) openList('current');
        else if (event.altKey) close();
        else move(-1);
        break;
      case 'PageDown':
        if (!open) return;
        move(pageSize);
        break;
      case 'PageUp':
        if (!open) return;
        move(-pageSize);
        break;
      case 'Enter':
        if (!open) return;
        choose(options[clamped]);
        break;
      case 'Escape':
        // Closing the list is this Esc's whole job: not the dialog's, not the view's.
        if (!open) return;
        close();
        event.stopPropagation();
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const optionId = (index: number): string => `${listId}-${index}`;
  const shown = options.length;
  const typed = query ?? '';

  return (
    <div className={className === undefined ? 'combobox' : `combobox ${className}`}>
      <div className="combobox-field">
        <input
          ref={input}
          id={id}
          className="input combobox-input"
          role="combobox"
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={open && clamped >= 0 ? optionId(clamped) : undefined}
          autoComplete="off"
          spellCheck={false}
          placeholder={placeholder}
          value={open && query !== undefined ? query : valueText}
          onFocus={(event) => event.currentTarget.select()}
          onClick={() => {
            if (!open) openList('current');
          }}
          onBlur={close}
          onChange={(event) => {
            setQuery(event.target.value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
        />
        <button
          type="button"
          className="combobox-toggle"
          tabIndex={-1}
          aria-label={open ? `Close the list: ${listLabel}` : `Open the list: ${listLabel}`}
          // Keep the focus in the input: the list belongs to it.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => {
            if (open) close();
            else openList('current');
            input.current?.focus();
          }}
        >
          <Icon name="chevronDown" size={12} />
        </button>
      </div>
      {/* Always in the DOM, so aria-controls names an element; empty while closed. A
          click in it must not blur the input first (that closes the list). */}
      <div
        className="combobox-popup"
        hidden={!open}
        onMouseDown={(event) => event.preventDefault()}
      >
        <div
          ref={scroller}
          id={listId}
          className="combobox-list"
          role="listbox"
          aria-label={listLabel}
        >
          {open && (
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const option = options[item.index];
                if (option === undefined) return null;
                const key = optionKey(option);
                return (
                  <div
                    key={key}
                    id={optionId(item.index)}
                    className="combobox-option"
                    role="option"
                    aria-selected={item.index === clamped}
                    aria-posinset={item.index + 1}
                    aria-setsize={shown}
                    data-current={key === valueKey || undefined}
                    style={{ transform: `translateY(${item.start}px)`, height: optionPx }}
                    onMouseMove={() => {
                      if (activeRef.current !== item.index) setActive(item.index);
                    }}
                    onClick={() => choose(option)}
                  >
                    <span className="combobox-check" aria-hidden>
                      {key === valueKey && <Icon name="check" size={12} />}
                    </span>
                    {renderOption === undefined ? optionText(option) : renderOption(option)}
                  </div>
                );
              })}
            </div>
          )}
        </div>
        <div className="combobox-status" role="status">
          {open ? describe(shown, typed) : ''}
        </div>
      </div>
    </div>
  );
}
