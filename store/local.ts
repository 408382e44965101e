/**
 * The folder backend: today's layout (outputs beside `manifest.jsonl`, state under `.mediaflow/`),
 * so existing output folders stay valid. A record is created once by linking a complete temporary
 * file into place (link(2) fails with EEXIST and never replaces): unlike writing into an O_EXCL
 * file, a crash can never leave a half-written record behind that readers would find.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, opendir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OutputRoot } from './confine.ts';
import { checkKey, checkPrefix } from './keys.ts';
import { readEach } from './read-each.ts';
import type { Created, Store, Stored, Tagged, Unfinished, WriteOptions, Written } from './types.ts';

const TEMPORARY = '.part';

export class LocalStore implements Store {
  readonly location: string;
  /** Its path checks (confine.ts), which the claims log beside the records uses too. */
  readonly root: OutputRoot;

  constructor(folder: string) {
    this.location = resolve(folder);
    this.root = new OutputRoot(this.location);
  }

  async createOnce(key: string, body: string): Promise<Created> {
    const { target, temporary } = await this.temporaryOf(key, body);
    try {
      linkSync(temporary, target);
      return { created: true };
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
      return { created: false, existing: readFileSync(target, 'utf8') };
    } finally {
      unlinkSync(temporary);
    }
  }

  async put(key: string, body: string): Promise<void> {
    const { target, temporary } = await this.temporaryOf(key, body);
    try {
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<string | undefined> {
    const path = this.path(key);
    // Most reads of a running campaign ask for a record not made yet: the open that fails costs an
    // error with its stack, several times this synchronous check of a file just written or not.
    if (!existsSync(path)) return undefined;
    return missingAsUndefined(() => readFile(path, 'utf8'));
  }

  async readAll(keys: readonly string[]): Promise<(string | undefined)[]> {
    const paths = keys.map((key) => this.path(key));
    return readEach(
      paths.length,
      (i) => missingAsUndefinedSync(() => readFileSync(paths[i]!, 'utf8')),
      (i) => missingAsUndefined(() => readFile(paths[i]!, 'utf8')),
    );
  }

  async readRange(key: string, start: number, end: number): Promise<Buffer | undefined> {
    return missingAsUndefined(async () => {
      const file = await open(this.path(key), 'r');
      try {
        const buffer = Buffer.alloc(Math.max(0, end - start));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
        return buffer.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    });
  }

  async stat(key: string): Promise<Stored | undefined> {
    // Synchronous: a re-run stats every recorded file, and fs/promises' thread-pool hop cost the
    // command more than the stat itself (docs/benchmarks.md, `rerun-100k`).
    const info = missingAsUndefinedSync(() => statSync(this.path(key)));
    return info?.isFile() ? { bytes: info.size } : undefined;
  }

  async *list(prefix: string): AsyncIterable<string> {
    const folder = checkPrefix(prefix) === '' ? this.location : this.path(prefix.slice(0, -1));
    const entries = await missingAsUndefined(() => readdir(folder, { recursive: true, withFileTypes: true }));
    const keys = (entries ?? [])
      .filter((entry) => entry.isFile() && !entry.name.endsWith(TEMPORARY))
      .map((entry) => prefix + relative(folder, join(entry.parentPath, entry.name)).split(sep).join('/'));
    // Byte order, like an S3 listing (the default sort compares UTF-16 units: the same for ASCII keys).
    yield* keys.sort();
  }

  async *listTagged(prefix: string): AsyncIterable<Tagged> {
    for await (const key of this.list(prefix)) {
      const info = missingAsUndefinedSync(() => statSync(this.path(key)));
      if (info) yield { key, tag: `${info.size}:${info.mtimeMs}` };
    }
  }

  async *unfinished(prefix: string): AsyncIterable<Unfinished> {
    const folder = checkPrefix(prefix) === '' ? this.location : this.path(prefix.slice(0, -1));
    // opendir reads the tree a few entries at a time; readdir would hold every entry at once.
    const entries = await missingAsUndefined(() => opendir(folder, { recursive: true }));
    for await (const entry of entries ?? []) {
      const target = TEMPORARY_NAME.exec(entry.name)?.[1];
      if (!entry.isFile() || target === undefined) continue;
      const under = (name: string) =>
        prefix + relative(folder, join(entry.parentPath, name)).split(sep).join('/');
      yield { temporary: under(entry.name), key: under(target) };
    }
  }

  async write(key: string, body: Readable, options: WriteOptions = {}): Promise<Written> {
    const target = await this.prepare(key);
    if (options.clearLeftovers) await removeLeftovers(target);
    const { temporary, file } = await this.openTemporary(target, (path) => open(path, 'wx'));
    const hash = createHash('sha256');
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        bytes += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(body, count, file.createWriteStream())
      .then(() => rename(temporary, target))
      .catch(removing(temporary));
    return { bytes, sha256: hash.digest('hex') };
  }

  async open(key: string): Promise<Readable | undefined> {
    const path = this.path(key);
    // Opened before it is handed out, so a missing file is undefined here, not a stream error later.
    const handle = await missingAsUndefined(() => open(path, 'r'));
    return handle?.createReadStream();
  }

  async move(from: string, to: string): Promise<void> {
    // Its folder resolved now: a missing source is not an error here, so a trusted folder removed
    // meanwhile would not be noticed by the rename.
    this.root.forget(dirname(this.path(to)));
    const target = await this.prepare(to);
    await missingAsUndefined(() => rename(this.path(from), target));
  }

  async remove(key: string): Promise<void> {
    const target = this.path(key);
    await this.root.check(dirname(target));
    await rm(target, { force: true });
  }

  private path(key: string): string {
    return join(this.location, ...checkKey(key).split('/'));
  }

  private async prepare(key: string): Promise<string> {
    const target = this.path(key);
    await this.root.prepare(dirname(target));
    return target;
  }

  /**
   * A new temporary file beside `target`, opened for writing: where its folder was trusted but has
   * been removed since (confine.ts), the folder is checked and made again, once.
   */
  private async openTemporary<File>(
    target: string,
    opening: (temporary: string) => File | Promise<File>,
  ): Promise<{ temporary: string; file: File }> {
    const temporary = temporaryName(target);
    try {
      return { temporary, file: await opening(temporary) };
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      this.root.forget(dirname(target));
      await this.root.prepare(dirname(target));
      return { temporary, file: await opening(temporary) };
    }
  }

  /**
   * `body` in a complete temporary file beside `key`'s, to be linked or renamed into place. Written
   * synchronously, like the manifest's lines (records/jsonl.ts): a record is small, and the
   * thread-pool hops of fs/promises' open, write, close and link cost the worker's main thread
   * several times the writes themselves (docs/engine.md, "The ceiling above ~50 jobs/s").
   */
  private async temporaryOf(key: string, body: string): Promise<{ target: string; temporary: string }> {
    const target = await this.prepare(key);
    const { temporary, file } = await this.openTemporary(target, (path) => openSync(path, 'wx'));
    try {
      writeFileSync(file, body);
    } catch (error) {
      closeSync(file);
      rmSync(temporary, { force: true });
      throw error;
    }
    closeSync(file);
    return { target, temporary };
  }
}

/** Removes `temporary` (a failed write's), then rethrows: a write that succeeded left none to remove. */
function removing(temporary: string): (error: unknown) => Promise<never> {
  return async (error) => {
    await rm(temporary, { force: true });
    throw error;
  };
}

/** Temporary files of earlier writes of `target`, left by a process killed mid-write. */
async function removeLeftovers(target: string): Promise<void> {
  const prefix = `${basename(target)}.`;
  const names = await readdir(dirname(target));
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith(TEMPORARY))
      .map((name) => rm(join(dirname(target), name), { force: true })),
  );
}

function temporaryName(target: string): string {
  return `${target}.${randomBytes(4).toString('hex')}${TEMPORARY}`;
}

/** A temporary file's name (temporaryName: the target, 8 hex digits, TEMPORARY), capturing the target. */
const TEMPORARY_NAME = /^(.+)\.[0-9a-f]{8}\.part$/;

function codeOf(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? error.code : undefined;
}

/** A file that is not there: missing, or a path through something that is not a folder. */
function isMissing(error: unknown): boolean {
  return codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR';
}

function missingAsUndefinedSync<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

async function missingAsUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
