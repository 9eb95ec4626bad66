const safeWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * POSIX shell quoting for a command a user copies: bare when safe, else single quotes
 * (a `'` becomes `'\''`). Every command Porthole shows for pasting (crictl lines, the
 * `ssh-keygen -R` hint) quotes each word with this.
 */
export function shellQuote(word: string): string {
  if (word !== '' && safeWord.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
