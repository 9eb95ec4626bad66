/** What the user chose or dropped, as files with their paths below the target directory. */
import type { UploadItem } from './store';

/** From a file input: a folder's files keep their path (`webkitRelativePath`). */
export function itemsFromInput(files: FileList | null): UploadItem[] {
  return [...(files ?? [])].map((file) => ({
    path: file.webkitRelativePath !== '' ? file.webkitRelativePath : file.name,
    file,
  }));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walk(entry: FileSystemEntry, prefix: string, out: UploadItem[]): Promise<void> {
  const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
  if (entry.isFile) {
    out.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries hands them out in batches until it returns none.
    for (
      let batch = await readEntries(reader);
      batch.length > 0;
      batch = await readEntries(reader)
    ) {
      for (const child of batch) await walk(child, path, out);
    }
  }
}

/** From a drop: files, and folders walked for their files. */
export async function itemsFromDrop(data: DataTransfer): Promise<UploadItem[]> {
  const entries = [...data.items]
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry());
  if (entries.some((entry) => entry === null)) return itemsFromInput(data.files);
  const out: UploadItem[] = [];
  for (const entry of entries) if (entry !== null) await walk(entry, '', out);
  return out;
}
