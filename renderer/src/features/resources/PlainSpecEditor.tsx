import { useEffect, useRef } from 'react';
import type { SpecEditorProps } from './SpecEditor';
import { problemRange } from './run-spec';

/**
 * A textarea with line numbers: shown while CodeMirror loads, and instead of it should it
 * fail to load. Problems are listed under the editor either way.
 */
export function PlainSpecEditor({ value, onChange, onRun, reveal, label }: SpecEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lineCount = value.split('\n').length;

  useEffect(() => {
    const element = area.current;
    if (element === null || reveal === undefined) return;
    const { from } = problemRange(element.value, { path: '', message: '', ...reveal });
    element.focus();
    element.setSelectionRange(from, from);
  }, [reveal]);

  return (
    <div className="spec-editor" style={{ display: 'flex' }}>
      <div
        ref={gutter}
        aria-hidden
        className="mono faint"
        style={{
          padding: '8px 6px',
          textAlign: 'right',
          overflow: 'hidden',
          userSelect: 'none',
          borderRight: '1px solid var(--border)',
          lineHeight: '1.4',
          fontSize: '0.78125rem',
        }}
      >
        {Array.from({ length: lineCount }, (_, index) => (
          <div key={index}>{index + 1}</div>
        ))}
      </div>
      <textarea
        ref={area}
        className="spec-fallback"
        aria-label={label}
        spellCheck={false}
        value={value}
        style={{ lineHeight: '1.4' }}
        onChange={(event) => onChange(event.target.value)}
        onScroll={(event) => {
          if (gutter.current !== null) gutter.current.scrollTop = event.currentTarget.scrollTop;
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            onRun();
          }
        }}
      />
    </div>
  );
}
