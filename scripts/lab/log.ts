/** Progress lines on stderr, with the time since the command started. */

const started = Date.now();
let quiet = false;

export function setQuiet(value: boolean): void {
  quiet = value;
}

function stamp(): string {
  return `[lab +${((Date.now() - started) / 1000).toFixed(1)}s]`;
}

export function progress(message: string): void {
  if (!quiet) process.stderr.write(`${stamp()} ${message}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`${stamp()} warning: ${message}\n`);
}

export function elapsedMs(): number {
  return Date.now() - started;
}
