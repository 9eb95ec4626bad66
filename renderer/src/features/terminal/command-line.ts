/**
 * Commands as the user types them in "Run command…": words split the way a POSIX shell
 * splits them (quotes and backslashes), since exec takes an argv and no shell runs in
 * between unless the user asks for one.
 */
import { AppError } from '../../../../shared/errors';
import { shellQuote } from '../resources/crictl';

export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') {
        quote = undefined;
      } else if (char === '\\' && /["\\$`]/.test(text[index + 1] ?? '')) {
        index += 1;
        word += text[index] ?? '';
      } else {
        word += char;
      }
      continue;
    }
    if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '\\') {
      index += 1;
      word += text[index] ?? '';
    } else {
      word += char;
    }
  }
  if (quote !== undefined) {
    throw new AppError({
      code: 'invalid-argument',
      message: `The command has an unclosed ${quote === "'" ? 'single' : 'double'} quote.`,
      hint: `Close it, or escape it with a backslash (\\${quote}).`,
    });
  }
  if (inWord) words.push(word);
  return words;
}

/** argv → one line a shell would split back into the same words. */
export function formatCommandLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
