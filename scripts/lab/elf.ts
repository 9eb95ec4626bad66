import { open } from 'node:fs/promises';

const PT_INTERP = 3;

/**
 * Whether an ELF executable is statically linked (has no PT_INTERP program header), so it
 * can run alone in an image. Reads only the headers. Undefined when it is not a 64-bit
 * little-endian ELF file (the only kind the lab builds for).
 */
export async function isStaticElf(path: string): Promise<boolean | undefined> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(64);
    await handle.read(header, 0, 64, 0);
    const isElf64Le = header.readUInt32BE(0) === 0x7f454c46 && header[4] === 2 && header[5] === 1;
    if (!isElf64Le) return undefined;
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    const table = Buffer.alloc(phentsize * phnum);
    await handle.read(table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) {
      if (table.readUInt32LE(i * phentsize) === PT_INTERP) return false;
    }
    return true;
  } finally {
    await handle.close();
  }
}
