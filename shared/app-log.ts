import type { AppLogEntry } from './model';

/**
 * One entry as a line: time, level, scope, message, and the cause on indented lines
 * below. Control characters are escaped, and every line of a cause is indented, so a
 * message can never forge an entry of its own (a line that starts with a time).
 */
export function formatLogLine(entry: AppLogEntry): string {
  const head = `${new Date(entry.time).toISOString()} ${entry.level.toUpperCase().padEnd(5)} ${entry.scope}: ${escapeControls(entry.message).replaceAll('\n', '\\n')}`;
  if (entry.detail === undefined) return `${head}\n`;
  const detail = escapeControls(entry.detail)
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  return `${head}\n${detail}\n`;
}

function escapeControls(text: string): string {
  // Everything below U+0020 but the newline (handled by the caller), and DEL.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x09\x0b-\x1f\x7f]/g, (char) =>
    char === '\t'
      ? '\\t'
      : char === '\r'
        ? '\\r'
        : `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
