/**
 * A log line's text: as written, or — for a JSON or logfmt line, when fields are shown —
 * its level, its message and the rest folded (the first few inline, all of them on
 * hover). Search matches are highlighted in either.
 */
import { memo } from 'react';
import { parseLogFields } from '../../../../shared/log-fields';
import { segments } from './highlight';

/** Fields shown inline after the message; the others are counted. */
const inlineFields = 3;

function Marked({ text, pattern }: { text: string; pattern: RegExp | undefined }) {
  return (
    <>
      {segments(text, pattern).map((part, i) =>
        part.match ? (
          <mark key={i} className="log-mark">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

function levelClass(level: string): string {
  const lower = level.toLowerCase();
  if (/^(err|error|fatal|panic|crit|critical|alert|emerg)/.test(lower)) return 'log-level error';
  if (/^warn/.test(lower)) return 'log-level warn';
  return 'log-level';
}

export const LineText = memo(function LineText({
  text,
  fields,
  pattern,
}: {
  text: string;
  fields: boolean;
  pattern: RegExp | undefined;
}) {
  const parsed = fields ? parseLogFields(text) : undefined;
  if (parsed === undefined) {
    return (
      <span className="log-text">
        <Marked text={text} pattern={pattern} />
      </span>
    );
  }
  const rest = parsed.rest.map(([key, value]) => `${key}=${value}`);
  const hidden = rest.length - inlineFields;
  return (
    <span className="log-text log-fields" title={rest.join('\n') || undefined}>
      {parsed.level !== undefined && (
        <span className={levelClass(parsed.level)}>{parsed.level.toUpperCase()}</span>
      )}
      {parsed.msg !== undefined && (
        <span className="log-msg">
          <Marked text={parsed.msg} pattern={pattern} />
        </span>
      )}
      {rest.length > 0 && (
        <span className="log-rest">
          <Marked text={rest.slice(0, inlineFields).join(' ')} pattern={pattern} />
          {hidden > 0 && <span className="log-more"> +{hidden} more</span>}
        </span>
      )}
    </span>
  );
});
