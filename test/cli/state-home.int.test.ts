/**
 * One home for the embedded stack (cli/state-home.ts): every command finds the same stack whatever
 * folder it runs in. Before, `cd specs && mediaflow status …` started a second Temporal server and
 * emulator in `specs/.state` and said the campaign did not exist.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stateDirOf } from '../../cli/state-home.ts';
import { BIN, cleanEnv, tempDir } from './helpers.ts';

const CHECKOUT_STATE = fileURLToPath(new URL('../../.state', import.meta.url));
const exec = promisify(execFile);

describe('where the embedded stack lives', () => {
  it('is the checkout’s .state unless MEDIAFLOW_STATE_DIR says otherwise', () => {
    expect(stateDirOf({})).toBe(CHECKOUT_STATE);
    expect(stateDirOf({ MEDIAFLOW_STATE_DIR: '/srv/mf' })).toBe('/srv/mf');
  });

  it('is the same stack from any folder: `stack status` names the checkout’s state, never the cwd’s', async () => {
    const specs = join(await tempDir(), 'specs');
    await mkdir(specs);
    // No MEDIAFLOW_STATE_DIR: the default a user gets. `stack status` only reads, so the checkout's
    // stack (running or not) is left as it is.
    const { stdout } = await exec(process.execPath, [BIN, 'stack', 'status', '--json'], {
      cwd: specs,
      env: cleanEnv(),
    });
    expect(JSON.parse(stdout).state_dir).toBe(CHECKOUT_STATE);
  }, 60_000);
});
