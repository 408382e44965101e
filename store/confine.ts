/**
 * Writes stay inside the output folder: a folder under it that is a symbolic link (a step folder
 * linked to /etc, say) must not carry a campaign's files elsewhere. The output folder itself may be
 * a link (the user chose it); what is checked is that every folder written into resolves under
 * where the output folder resolves. Temporary files are created with O_EXCL (never through a link)
 * and renamed over the target (a link there is replaced, not followed), so checking the folders
 * is enough.
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

/** The output folder, created on first use, and where it resolves (once: it is the user's choice). */
export class OutputRoot {
  private resolved: Promise<string> | undefined;

  readonly folder: string;

  constructor(folder: string) {
    this.folder = folder;
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
    return true;
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
