/**
 * Where a campaign's state lives: one interface, two backends (store/local.ts, a folder; store/s3.ts,
 * S3-compatible object storage). Keys are relative, `/`-separated paths, the same for both backends
 * (store/layout.ts names them), so a folder and a bucket hold the same tree.
 *
 * Shared state is never appended: a record is created once (`createOnce`), and a second writer of
 * the same key is told it exists and given what the first one wrote. That is how any number of
 * workers, on any number of machines, agree on one record per job (ARCHITECTURE.md decision 11).
 */
import type { Readable } from 'node:stream';

export type Created =
  | { readonly created: true }
  /** Another writer created the key first: its content, which the caller adopts. */
  | { readonly created: false; readonly existing: string };

export interface Stored {
  readonly bytes: number;
}

export interface Written {
  readonly bytes: number;
  /** Hex sha256 of the bytes written, computed while they streamed. */
  readonly sha256: string;
}

export interface WriteOptions {
  /**
   * Remove what an earlier, killed writer of this key left (a folder's temporary files beside it).
   * For retries only: on a folder it lists the key's directory. S3 has nothing to clear: an
   * unfinished upload is never visible (a bucket lifecycle rule reclaims its parts).
   */
  readonly clearLeftovers?: boolean;
}

export interface PutOptions {
  readonly contentType?: string;
}

export interface Store {
  /** Where it is, for messages and `--output`: a folder path or `s3://bucket/prefix`. */
  readonly location: string;
  /** Creates `key` with `body` unless it exists; never replaces, never leaves a partial record. */
  createOnce(key: string, body: string): Promise<Created>;
  /**
   * Writes or replaces `key` whole (content-addressed data, materialized views). `contentType`
   * is what S3 serves the object as (a page opened from the bucket is `text/html`); a folder has none.
   */
  put(key: string, body: string, options?: PutOptions): Promise<void>;
  /** The content of `key`, or undefined when there is none. */
  read(key: string): Promise<string | undefined>;
  /** The contents of `keys`, in their order (undefined where none): many at once, as fast as the backend allows. */
  readAll(keys: readonly string[]): Promise<(string | undefined)[]>;
  /** Bytes [start, end) of `key` (fewer at its end), or undefined when there is none. */
  readRange(key: string, start: number, end: number): Promise<Buffer | undefined>;
  /** Size of `key`, or undefined when there is none. */
  stat(key: string): Promise<Stored | undefined>;
  /** Every key under `prefix` (which ends with `/`), in byte order of their names. */
  list(prefix: string): AsyncIterable<string>;
  /** As `list`, with each key's tag, so a reader can keep what it read until the tag changes. */
  listTagged(prefix: string): AsyncIterable<Tagged>;
  /**
   * Streams `body` into `key`, replacing it only once every byte arrived (a reader never sees a
   * partial object); returns its size and sha256, which the S3 backend also sends as the object's
   * checksum so the server verifies what it stored.
   */
  write(key: string, body: Readable, options?: WriteOptions): Promise<Written>;
  /** A stream of `key`'s bytes, or undefined when there is none. */
  open(key: string): Promise<Readable | undefined>;
  /** Renames `from` to `to` (replacing `to`); nothing happens when `from` is missing. */
  move(from: string, to: string): Promise<void>;
  /** Removes `key`; a missing key is not an error. */
  remove(key: string): Promise<void>;
  /**
   * The temporary files of unfinished writes under `prefix` (which ends with `/`): what a process
   * killed mid-write left (a folder's; S3 shows no unfinished upload). Yielded as the folder is
   * read, so a folder of 100,000 outputs is never held in memory. Remove one with
   * `remove(temporary)`, and only when no one writes its key any more: a write in progress would
   * then fail.
   */
  unfinished(prefix: string): AsyncIterable<Unfinished>;
}

/**
 * A listed key and its tag: a string that differs whenever the key was written again (S3's ETag;
 * a file's size and modification time).
 */
export interface Tagged {
  readonly key: string;
  readonly tag: string;
}

/** A temporary file an unfinished write left: its own key, and the key it was being written to. */
export interface Unfinished {
  readonly temporary: string;
  readonly key: string;
}
