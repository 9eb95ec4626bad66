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
export function XtermHost({ content }: { content: Attachable }) {
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = host.current;
    if (element === null) return;
    content.attach(element);
    return () => content.detach(element);
  }, [content]);
  return <div ref={host} className="term-host" />;
}
