/**
 * The command box's text as exec's argv: through `sh -c` (the default: `;`, pipes and
 * globs work as in a shell on the node), or split into words the way a POSIX shell splits
 * them for a plain command (quotes and backslashes; nothing expanded).
 */
export function commandWords(text: string, shell: boolean): string[] {
  if (text.trim() === '') return [];
  return shell ? ['sh', '-c', text] : splitWords(text);
}

export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (
        char === '\\' &&
        index + 1 < text.length &&
        '"\\$`'.includes(text[index + 1] as string)
      ) {
        index += 1;
        word += text[index];
      } else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < text.length) {
      index += 1;
      word += text[index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
