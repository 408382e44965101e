/**
 * Writes stay inside the output folder: a folder under it that is a symbolic link (a step folder
 * linked to /etc, say) must not carry a campaign's files elsewhere. The output folder itself may be
 * a link (the user chose it); what is checked is that every folder written into resolves under
 * where the output folder resolves. Temporary files are created with O_EXCL (never through a link)
 * and renamed over the target (a link there is replaced, not followed), so checking the folders
 * is enough.
 *
 * A folder found inside is trusted for a second before it is resolved again: each resolve walks
 * every component of the path, and a worker writing 200 outputs a second into one step folder
 * spent ~5 % of its CPU on it (docs/engine.md). A link swapped in for a folder while its campaign
 * writes there is refused from the next second on; a trusted folder found removed is made again
 * (LocalStore asks, on ENOENT).
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';

export class OutsideOutputFolder extends Error {
  override readonly name = 'OutsideOutputFolder';
  /** What O_NOFOLLOW reports on a link, and as permanent (activities/failure-kind.ts). */
  readonly code = 'ELOOP';
  constructor(root: string, folder: string, resolved: string) {
    super(
      `refusing to write into ${folder}: it resolves to ${resolved}, outside the output folder ${root} (a symbolic link); remove the link`,
    );
  }
}

/** How long a folder found inside the root is trusted before it is resolved again. */
export const TRUSTED_MS = 1_000;

/** The output folder, created on first use, and where it resolves (once: it is the user's choice). */
export class OutputRoot {
  private resolved: Promise<string> | undefined;
  /** Folders found inside, and when. */
  private readonly inside = new Map<string, number>();

  readonly folder: string;
  private readonly now: () => number;

  constructor(folder: string, now: () => number = Date.now) {
    this.folder = folder;
    this.now = now;
  }

  /** Creates `folder` (under the root) unless it exists; refuses one that resolves outside. */
  async prepare(folder: string): Promise<void> {
    const inside = await this.check(folder);
    if (inside) return;
    // mkdir -p would follow a link on its way down, so the deepest existing folder is checked first.
    await this.check(await deepestExisting(this.folder, folder));
    await mkdir(folder, { recursive: true });
    await this.check(folder);
  }

  /** Refuses an existing `folder` that resolves outside the root; false when it does not exist. */
  async check(folder: string): Promise<boolean> {
    const checkedAt = this.inside.get(folder);
    if (checkedAt !== undefined && this.now() - checkedAt < TRUSTED_MS) return true;
    const root = await this.root();
    let resolved: string;
    try {
      resolved = await realpath(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    const path = relative(root, resolved);
    if (path === '..' || path.startsWith(`..${sep}`) || path.startsWith(sep))
      throw new OutsideOutputFolder(root, folder, resolved);
    // A campaign writes into a few folders (its steps, its records); a plan that files each output
    // in a folder of its own starts the map afresh now and then rather than keep them all.
    if (this.inside.size >= 1_000) this.inside.clear();
    this.inside.set(folder, this.now());
    return true;
  }

  /** Resolves `folder` again at its next check: it was found missing (removed while trusted). */
  forget(folder: string): void {
    this.inside.delete(folder);
  }

  private root(): Promise<string> {
    this.resolved ??= mkdir(this.folder, { recursive: true }).then(() => realpath(this.folder));
    return this.resolved;
  }
}

async function deepestExisting(root: string, folder: string): Promise<string> {
  let current = folder;
  while (current !== root && current !== dirname(current)) {
    try {
      await lstat(current);
      return current;
    } catch {
      current = dirname(current);
    }
  }
  return root;
}
