/**
 * The manifest: `manifest.jsonl` in the output folder, one line per finished job. It is the
 * record users keep, and it is how a re-run knows what exists already (decision 2).
 *
 * Crash safety: each entry is appended with one write() of a whole line. A process killed
 * mid-append (SIGKILL lands between syscalls) leaves either the full line or none; a torn tail
 * from a power cut is cut off on the next open, so the file never keeps a broken line.
 * Several workers may append to one manifest (shared folder); each keeps an index that it
 * refreshes from the bytes others appended when a lookup misses.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { open, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const ManifestEntry = z.object({
  key: z.string(),
  step: z.string(),
  name: z.string(),
  model: z.string(),
  input: z.record(z.string(), z.unknown()),
  prediction_id: z.string(),
  /** Decimal string, as the service reports it; null when the record did not say. */
  credits_used: z.string().nullable(),
  /** Relative to the output folder. */
  file: z.string(),
  sha256: z.string(),
  bytes: z.number().int(),
  output_url: z.string(),
  regenerations: z.number().int(),
  created_at: z.string(),
  finished_at: z.string(),
  wait_ms: z.number().int(),
  download_ms: z.number().int(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

export const MANIFEST_FILE = 'manifest.jsonl';

export class Manifest {
  private readonly entries = new Map<string, ManifestEntry>();
  private offset = 0;
  /** Reads run one after another: two at once would both advance the offset over the same bytes. */
  private reading: Promise<void> = Promise.resolve();

  private constructor(readonly file: string) {}

  static async open(outputDir: string): Promise<Manifest> {
    const manifest = new Manifest(join(outputDir, MANIFEST_FILE));
    await manifest.repairTail();
    await manifest.refresh();
    return manifest;
  }

  async get(key: string): Promise<ManifestEntry | undefined> {
    const known = this.entries.get(key);
    if (known) return known;
    await this.refresh();
    return this.entries.get(key);
  }

  all(): IterableIterator<ManifestEntry> {
    return this.entries.values();
  }

  append(entry: ManifestEntry): void {
    const line = Buffer.from(`${JSON.stringify(ManifestEntry.parse(entry))}\n`);
    const fd = openSync(this.file, 'a');
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    this.entries.set(entry.key, entry);
  }

  /** Reads lines appended since the last read (by this process or another worker). */
  refresh(): Promise<void> {
    const read = this.reading.then(() => this.readAppended());
    // A failed read (the disk, say) fails its caller, not every read after it.
    this.reading = read.catch(() => {});
    return read;
  }

  private async readAppended(): Promise<void> {
    let size: number;
    try {
      size = (await stat(this.file)).size;
    } catch {
      return;
    }
    if (size <= this.offset) return;
    const handle = await open(this.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      await handle.read(buffer, 0, buffer.length, this.offset);
      const text = buffer.toString('utf8');
      const complete = text.lastIndexOf('\n') + 1;
      for (const line of text.slice(0, complete).split('\n')) {
        if (!line) continue;
        const parsed = ManifestEntry.safeParse(safeJson(line));
        if (parsed.success) this.entries.set(parsed.data.key, parsed.data);
      }
      this.offset += Buffer.byteLength(text.slice(0, complete));
    } finally {
      await handle.close();
    }
  }

  private async repairTail(): Promise<void> {
    let text: Buffer;
    try {
      text = await readFile(this.file);
    } catch {
      return;
    }
    const end = text.lastIndexOf(0x0a) + 1;
    if (end < text.length) await truncate(this.file, end);
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** One Manifest per output folder per worker process. */
export class Manifests {
  private readonly open = new Map<string, Promise<Manifest>>();

  of(outputDir: string): Promise<Manifest> {
    let manifest = this.open.get(outputDir);
    if (!manifest) {
      manifest = Manifest.open(outputDir);
      manifest.catch(() => this.open.delete(outputDir));
      this.open.set(outputDir, manifest);
    }
    return manifest;
  }
}
