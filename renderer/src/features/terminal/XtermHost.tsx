import { useLayoutEffect, useRef } from 'react';

/** Anything whose element moves into a host while shown: a terminal or a player. */
export interface Attachable {
  attach(host: HTMLElement): void;
  detach(host?: HTMLElement): void;
}

/**
 * Where a terminal's element goes while its pane is on screen. Mounting moves the
 * element in; unmounting moves it out: the xterm instance itself is never recreated.
 */
export function XtermHost({
  content,
  onAttached,
}: {
  content: Attachable;
  /** Right after the element is in: where a focus that waited for the pane is given. */
  onAttached?: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const attached = useRef(onAttached);
  attached.current = onAttached;
  useLayoutEffect(() => {
    const element = host.current;
    if (element === null) return;
    content.attach(element);
    attached.current?.();
    return () => content.detach(element);
  }, [content]);
  return <div ref={host} className="term-host" />;
}
