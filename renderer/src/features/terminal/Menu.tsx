import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';

export interface MenuItem {
  readonly label: string;
  readonly shortcut?: string;
  readonly disabled?: boolean;
  readonly onSelect: () => void;
}

export type MenuEntry = MenuItem | 'separator';

/**
 * A small popup menu at a point (the context menu) or under a button (a pane's "more"
 * menu): arrows move, Enter picks, Esc or a click elsewhere closes.
 */
export function Menu({
  entries,
  at,
  label,
  onClose,
}: {
  entries: readonly MenuEntry[];
  at: { readonly x: number; readonly y: number };
  label: string;
  onClose: () => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const [position, setPosition] = useState(at);

  // Keep the menu on screen: flip it left or up when it would overflow.
  useLayoutEffect(() => {
    const element = list.current;
    if (element === null) return;
    const { width, height } = element.getBoundingClientRect();
    setPosition({
      x: at.x + width > window.innerWidth - 4 ? Math.max(4, at.x - width) : at.x,
      y: at.y + height > window.innerHeight - 4 ? Math.max(4, at.y - height) : at.y,
    });
    element.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
  }, [at]);

  useEffect(() => {
    const onPointerDown = (event: PointerEvent): void => {
      if (list.current !== null && !list.current.contains(event.target as Node)) onClose();
    };
    const onBlur = (): void => onClose();
    document.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('blur', onBlur);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('blur', onBlur);
    };
  }, [onClose]);

  const onKeyDown = (event: KeyboardEvent): void => {
    const items = [
      ...(list.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? []),
    ];
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      items[(index + step + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    }
  };

  return createPortal(
    <ul
      ref={list}
      className="term-menu"
      role="menu"
      aria-label={label}
      style={{ left: position.x, top: position.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {entries.map((entry, index) =>
        entry === 'separator' ? (
          <li key={`separator-${index}`} className="term-menu-separator" role="separator" />
        ) : (
          <li key={entry.label} role="none">
            <button
              type="button"
              role="menuitem"
              className="term-menu-item"
              disabled={entry.disabled}
              onClick={() => {
                onClose();
                entry.onSelect();
              }}
            >
              {entry.label}
              {entry.shortcut !== undefined && <kbd>{entry.shortcut}</kbd>}
            </button>
          </li>
        ),
      )}
    </ul>,
    document.body,
  );
}
