/** Opening files from the renderer (a file input), and the names recordings are saved as. */

/** Lets the user pick a file; undefined when they cancel. */
export function pickFile(accept: string): Promise<File | undefined> {
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = accept;
    input.style.display = 'none';
    input.addEventListener('change', () => {
      resolve(input.files?.[0]);
      input.remove();
    });
    input.addEventListener('cancel', () => {
      resolve(undefined);
      input.remove();
    });
    document.body.append(input);
    input.click();
  });
}

/** A file name from a title and a time: `web-bash-2024-05-01-1204.cast`. */
export function fileNameFor(title: string, extension: string, at = new Date()): string {
  const stem = title
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${stem === '' ? 'terminal' : stem}-${stamp}.${extension}`;
}
