/** Saving from the renderer: one way for every view's Download and Export. */

/** Saves what `url` serves as `fileName`, the way the browser (or Electron) downloads anything. */
export function saveUrl(url: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}

/** Saves text as a file. */
export function saveText(fileName: string, text: string, type = 'text/plain'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  saveUrl(url, fileName);
  // The download holds its own reference by now; the URL only pins the blob in memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
