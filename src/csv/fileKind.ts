// What a file is by its first bytes, whatever its name says: a zip (an .xlsx), an OLE compound file
// (an old .xls, or an encrypted workbook), text, or something else.
import { open, stat } from 'node:fs/promises';

export type FileKind = { kind: 'zip' | 'ole' | 'text' | 'other' | 'empty'; size: number } | { kind: 'unreadable'; code: string };

export async function fileKind(path: string): Promise<FileKind> {
  let head: Buffer;
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) return { kind: 'unreadable', code: 'EISDIR' };
    size = info.size;
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(512, size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (err) {
    return { kind: 'unreadable', code: String((err as { code?: string }).code ?? 'error') };
  }
  if (head.length === 0) return { kind: 'empty', size };
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return { kind: 'zip', size };
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return { kind: 'ole', size };
  // Text: no NUL byte and no other control character than tab and line endings (UTF-16 has NULs).
  const text = !head.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  return { kind: text ? 'text' : 'other', size };
}
