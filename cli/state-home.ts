/**
 * Where the embedded stack keeps its state: one home whatever folder a command runs in, so
 * `cd specs && mediaflow status spring-launch` finds the same Temporal server and emulator as a
 * command run beside the spec (before, each working directory grew a `.state/` and a stack of its
 * own, and the campaign "did not exist" there).
 *
 * MEDIAFLOW_STATE_DIR when set; else `.state/` in the folder mediaflow is installed in (a checkout,
 * as the README installs it: one stack per checkout, so two checkouts of different versions never
 * share a server); else, when that folder is not writable (a system-wide install),
 * `$XDG_STATE_HOME/mediaflow` (default `~/.local/state/mediaflow`).
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INSTALL_ROOT = fileURLToPath(new URL('..', import.meta.url));

export function stateDirOf(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEDIAFLOW_STATE_DIR) return env.MEDIAFLOW_STATE_DIR;
  if (writable(INSTALL_ROOT)) return join(INSTALL_ROOT, '.state');
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'mediaflow');
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
