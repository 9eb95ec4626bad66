/**
 * A local line editor for sessions without a tty. With a tty the container's PTY echoes
 * and edits lines; without one, what the process reads is raw stdin, so the pane does what
 * a cooked local terminal does for `kubectl attach -i`: echo as you type, let Backspace and
 * Ctrl-U edit, and send the line (with a newline, not the Enter key's carriage return) on
 * Enter. Escape sequences (arrows, function keys) have no meaning here and are dropped.
 */

export interface Disciplined {
  /** What to draw in the pane. */
  readonly echo: string;
  /** What to send to the process (whole lines). */
  readonly send: string;
}

/** What follows ESC in a key's sequence: CSI (`[A`, `[15~`), SS3 (`OP`) or one character. */
const afterEscape = /^(\[[0-9;?]*[ -/]*[@-~]|O.|.)?/;

export class LineDiscipline {
  private line: string[] = [];
  /** A pasted CRLF is one line end, not two. */
  private afterCarriageReturn = false;

  input(data: string): Disciplined {
    let echo = '';
    let send = '';
    for (let index = 0; index < data.length;) {
      const rest = data.slice(index);
      if (rest.startsWith('\x1b')) {
        index += 1 + (afterEscape.exec(rest.slice(1))?.[0].length ?? 0);
        continue;
      }
      const char = String.fromCodePoint(data.codePointAt(index) ?? 0);
      index += char.length;
      const crlf = char === '\n' && this.afterCarriageReturn;
      this.afterCarriageReturn = char === '\r';
      if (crlf) continue;
      switch (char) {
        case '\r':
        case '\n':
          send += `${this.line.join('')}\n`;
          echo += '\r\n';
          this.line = [];
          break;
        case '\x7f':
        case '\b':
          if (this.line.pop() !== undefined) echo += '\b \b';
          break;
        case '\x15': // Ctrl-U: the whole line
          echo += '\b \b'.repeat(this.line.length);
          this.line = [];
          break;
        case '\x03': // Ctrl-C: drop the line (there is no process group to signal)
          echo += '^C\r\n';
          this.line = [];
          break;
        case '\x04': // Ctrl-D: what is typed so far, without a newline
          send += this.line.join('');
          this.line = [];
          break;
        default:
          if (char < ' ' && char !== '\t') break; // other control keys mean nothing here
          this.line.push(char);
          echo += char;
      }
    }
    return { echo, send };
  }
}
