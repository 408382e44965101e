/**
 * Create-once records (ARCHITECTURE.md, decision 11): a file created with O_EXCL holds its whole
 * content or does not exist, so any number of workers record a fact once. The manifest's job
 * records and the review decisions use it.
 */
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { type LineWriter, nodeWriter, ShortWrite } from './jsonl.ts';

/** Writes `text` to a new file `path`; false when it exists already (another writer was first). */
export function createOnce(path: string, text: string, writer: LineWriter = nodeWriter): boolean {
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return false;
    throw error;
  }
  try {
    const data = Buffer.from(text);
    const written = writer.write(fd, data);
    if (written !== data.length) throw new ShortWrite(path, written, data.length);
  } catch (error) {
    // A partial record must not block the next attempt, which writes it whole.
    closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  closeSync(fd);
  return true;
}
