/** A terminal's text as plain lines: what "Export transcript" saves. */

export interface BufferLike {
  readonly length: number;
  getLine(
    index: number,
  ): { readonly isWrapped: boolean; translateToString(trimRight?: boolean): string } | undefined;
}

/**
 * The scrollback and screen as text: lines the terminal wrapped are joined back into the
 * line the program wrote, trailing blanks trimmed, colours and cursor moves gone.
 */
export function bufferText(buffer: BufferLike): string {
  const lines: string[] = [];
  for (let index = 0; index < buffer.length; index += 1) {
    const line = buffer.getLine(index);
    if (line === undefined) continue;
    const text = line.translateToString(false);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  const trimmed = lines.map((line) => line.trimEnd());
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
  return trimmed.length === 0 ? '' : `${trimmed.join('\n')}\n`;
}
