/**
 * A run's name pattern: RE2 (via RE2JS), the syntax crictl's `--name` uses, so "Copy as
 * crictl" selects the same containers, and a pattern can't take the core down with
 * catastrophic backtracking. Label selectors: shared/label-selector.ts.
 */
import { RE2JS } from 're2js';
import { AppError } from '../../../../shared/errors';

const maxPatternLength = 256;

function invalid(message: string, hint?: string): AppError {
  return new AppError({ code: 'invalid-argument', message, ...(hint !== undefined && { hint }) });
}

export interface NamePattern {
  readonly source: string;
  test(name: string): boolean;
}

export function compileNamePattern(text: string): NamePattern {
  if (text.trim() === '') throw invalid('The name pattern is empty.', 'Use . to match any name.');
  if (text.length > maxPatternLength) throw invalid('The name pattern is too long.');
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(text);
  } catch (error) {
    throw invalid(
      `"${text}" is not a regular expression Porthole can use: ${error instanceof Error ? error.message : String(error)}.`,
      'Name patterns are RE2 regular expressions (as crictl --name): no lookaround or backreferences.',
    );
  }
  return { source: text, test: (name) => pattern.matcher(name).find() };
}
