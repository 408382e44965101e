/**
 * Where the snapshot lives: read once at start, written atomically (tmp + fsync + rename, so a
 * crash leaves the old file or the new one, never half of one) at most once per SAVE_DELAY_MS
 * after a change, and once more, synchronously, on close. A SIGKILL or power cut can lose the
 * changes of the last SAVE_DELAY_MS; a normal stop (SIGTERM, `mediaflow stack stop`) loses none.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Snapshot, Snapshot as SnapshotSchema } from './snapshot.ts';

/** Long enough that a busy emulator writes about once a second, short enough to lose little. */
export const SAVE_DELAY_MS = 500;

/** undefined when there is no file yet (first start); throws on a file that does not parse. */
export function readStateFile(path: string): Snapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON (${(error as Error).message}); move it away to start empty`);
  }
  const parsed = SnapshotSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${path} is not an emulator state file (${issue?.path.join('.')}: ${issue?.message}); move it away to start empty`,
    );
  }
  return parsed.data;
}

export function writeStateFile(path: string, snapshot: Snapshot): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  // 0600: the snapshot holds the API keys' secrets and webhook secrets.
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(snapshot));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Debounced saving: `changed()` is cheap (called per request); `close()` saves what is left. */
export class StateSaver {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;

  private readonly path: string;
  private readonly capture: () => Snapshot;
  private readonly onError: (error: Error) => void;

  constructor(path: string, capture: () => Snapshot, onError: (error: Error) => void) {
    this.path = path;
    this.capture = capture;
    this.onError = onError;
  }

  changed(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.save();
    }, SAVE_DELAY_MS);
    // A pending save never keeps the process alive: close() does the last one.
    this.timer.unref();
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.save();
  }

  private save(): void {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      writeStateFile(this.path, this.capture());
    } catch (error) {
      // A full disk must not take the service down; the next change tries again.
      this.dirty = true;
      this.onError(error as Error);
    }
  }
}
