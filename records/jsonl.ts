/**
 * Append-only JSON-lines files that several processes share (the manifest, the claims logs).
 *
 * Writing: a batch of lines goes out in one write() on an O_APPEND descriptor, so a process killed
 * between syscalls leaves all of it or none. The count write() returns is checked: a short write
 * (a full disk, a file size limit) is undone by truncating our bytes back off, and the caller gets
 * an error instead of a half line that the next append would glue onto. If the file does not end
 * with a newline (a power cut tore the last line), the write starts a fresh line first.
 *
 * Reading: only complete lines count, and each is parsed with its schema; a torn tail is skipped,
 * never cut off, because another process may be appending to the file at that very moment.
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import type { z } from 'zod';

/** The one call tests replace, to make a write come up short the way a full disk does. */
export interface LineWriter {
  write(fd: number, data: Buffer): number;
}

export const nodeWriter: LineWriter = { write: (fd, data) => writeSync(fd, data) };

export class ShortWrite extends Error {
  constructor(file: string, written: number, expected: number) {
    super(`wrote ${written} of ${expected} bytes to ${file} (disk full?); the partial line was removed`);
  }
}

/** Appends whole lines (no newline inside); throws ShortWrite when they did not all land. */
export function appendLines(file: string, lines: readonly string[], writer: LineWriter = nodeWriter): void {
  if (lines.length === 0) return;
  // 'a+', but never through a symbolic link (a manifest linked elsewhere would be written there).
  const { O_APPEND, O_CREAT, O_RDWR, O_NOFOLLOW } = constants;
  const fd = openSync(file, O_APPEND | O_CREAT | O_RDWR | O_NOFOLLOW, 0o666);
  try {
    const size = fstatSync(fd).size;
    const torn = size > 0 && byteAt(fd, size - 1) !== 0x0a;
    const data = Buffer.from(`${torn ? '\n' : ''}${lines.map((line) => `${line}\n`).join('')}`);
    let written = 0;
    try {
      written = writer.write(fd, data);
    } finally {
      if (written !== data.length) undoTail(fd, data.subarray(0, written));
    }
    if (written !== data.length) throw new ShortWrite(file, written, data.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a short write's bytes, but only while they are still the file's tail: if another process
 * appended after them, truncating would cut its line, so ours stays as a broken line that readers
 * skip (that process's writer saw no newline at the end and began a fresh line).
 */
function undoTail(fd: number, partial: Buffer): void {
  if (partial.length === 0) return;
  const end = fstatSync(fd).size;
  const tail = Buffer.alloc(partial.length);
  if (end < partial.length || readSync(fd, tail, 0, tail.length, end - tail.length) !== tail.length) return;
  if (tail.equals(partial)) ftruncateSync(fd, end - partial.length);
}

function byteAt(fd: number, position: number): number | undefined {
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, position) === 1 ? byte[0] : undefined;
}

/** The complete lines of `text` (a torn tail is left out) and how many bytes they span. */
export function completeLines(text: Buffer): { lines: string[]; bytes: number } {
  const bytes = text.lastIndexOf(0x0a) + 1;
  return { lines: text.subarray(0, bytes).toString('utf8').split('\n').filter(Boolean), bytes };
}

/** Each line that parses as JSON and matches the schema; anything else (a torn line) is skipped. */
export function parseLines<T extends z.ZodType>(lines: readonly string[], schema: T): z.infer<T>[] {
  return lines.flatMap((line) => {
    const parsed = schema.safeParse(parseJson(line));
    return parsed.success ? [parsed.data] : [];
  });
}

/** The records of a JSON-lines file; none when it does not exist yet. */
export async function readLines<T extends z.ZodType>(file: string, schema: T): Promise<z.infer<T>[]> {
  return (await readCheckedLines(file, schema)).values;
}

/**
 * The records of a JSON-lines file, and whether anything in it was not a record: a line that does
 * not parse (garbled), or a torn tail. A reader that must not lose a record to such damage (the
 * manifest's: records/manifest.ts, takes) then reads the records the file was written from.
 */
export async function readCheckedLines<T extends z.ZodType>(
  file: string,
  schema: T,
): Promise<{ values: z.infer<T>[]; damaged: boolean }> {
  let text: Buffer;
  try {
    text = await readFile(file);
  } catch (error) {
    if (isMissing(error)) return { values: [], damaged: false };
    throw error;
  }
  const { lines, bytes } = completeLines(text);
  const values = parseLines(lines, schema);
  return { values, damaged: values.length !== lines.length || bytes !== text.length };
}

/** A file or folder that does not exist (yet). */
export function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A record of a JSON-lines file and the byte offset its line starts at (to read it again, readLineAt). */
export interface Located<T> {
  readonly value: T;
  readonly offset: number;
}

/** Each complete line of `text` that matches the schema, located: `text` starts at byte `base` of its file. */
function locatedLines<T extends z.ZodType>(text: Buffer, base: number, schema: T): Located<z.infer<T>>[] {
  const located: Located<z.infer<T>>[] = [];
  for (let start = 0, end = text.indexOf(0x0a); end >= 0; start = end + 1, end = text.indexOf(0x0a, start)) {
    const parsed = schema.safeParse(parseJson(text.subarray(start, end).toString('utf8')));
    if (parsed.success) located.push({ value: parsed.data, offset: base + start });
  }
  return located;
}

/** Bytes read at once by readLineAt: a manifest line with its input is about 1 KB. */
const LINE_CHUNK = 4096;

/**
 * The record on the line that starts at `offset` (as AppendedLines located it), or undefined when
 * there is none there that matches the schema (the file was replaced or cut since). Synchronous,
 * like the writes: one small read of a file just written, where the three thread-pool hops of
 * fs/promises cost several times the read itself (bench/manifest-memory.ts shows it).
 */
export function readLineAt<T extends z.ZodType>(
  file: string,
  offset: number,
  schema: T,
): z.infer<T> | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    for (let at = offset; ; ) {
      const chunk = Buffer.allocUnsafe(LINE_CHUNK);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, at);
      const end = chunk.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(chunk.subarray(0, end >= 0 ? end : bytesRead));
      if (end >= 0) break;
      if (bytesRead < chunk.length) return undefined; // no complete line there
      at += bytesRead;
    }
    const parsed = schema.safeParse(parseJson(Buffer.concat(chunks).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * What was appended to a JSONL file since the last call, parsed and located: the manifest and the
 * claims logs only grow, so each reader keeps its offset and reads just the new bytes. Calls run one after
 * another: two at once would both read the same bytes and both advance the offset past them,
 * skipping the lines after (found once in the manifest). A torn tail is left for the next call:
 * it is either being appended right now or broken for good (and then skipped by the next writer).
 */
export class AppendedLines<T extends z.ZodType> {
  private offset = 0;
  private inode: number | undefined;
  private reading: Promise<unknown> = Promise.resolve();
  /** The read that waits for the one before it to end, not started yet. */
  private queued: Promise<Located<z.infer<T>>[]> | undefined;

  private readonly file: string;
  private readonly schema: T;

  constructor(file: string, schema: T) {
    this.file = file;
    this.schema = schema;
  }

  next(): Promise<Located<z.infer<T>>[]> {
    // Callers that come while a read waits its turn share it: it starts after each of them asked,
    // so it finds every line they could expect, and they handle a line twice harmlessly (indexing
    // it again). A worker finishing hundreds of jobs a second asks far more often than it can read.
    if (this.queued) return this.queued;
    const read = this.reading.then(() => {
      this.queued = undefined;
      return this.readAppended();
    });
    this.queued = read;
    // A failed read (the disk, say) fails its caller, not every read after it. Nor is the result
    // kept: the first read of a large manifest is every line of it.
    this.reading = read.then(
      () => undefined,
      () => undefined,
    );
    return read;
  }

  private async readAppended(): Promise<Located<z.infer<T>>[]> {
    let size: number;
    try {
      const stats = await stat(this.file);
      size = stats.size;
      // The file was replaced whole (`run` rebuilds a damaged manifest from its records): read
      // the new one from its start, not from an offset into the old one.
      if (this.inode !== undefined && stats.ino !== this.inode) this.offset = 0;
      this.inode = stats.ino;
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    if (size <= this.offset) return [];
    const handle = await open(this.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      const complete = buffer.subarray(0, buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1);
      const located = locatedLines(complete, this.offset, this.schema);
      this.offset += complete.length;
      return located;
    } finally {
      await handle.close();
    }
  }
}
