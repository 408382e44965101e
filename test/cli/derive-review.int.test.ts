/**
 * A review gate on a derive step, as a user runs it (docs/review.md, "Derivatives"): the crops are
 * made, the campaign waits for them, one is approved and one rejected from another terminal, and
 * then `run` ends: `export --derivatives` lists the approved crop with its decision and leaves the
 * rejected one out, whose file stays where it was made; a regeneration is refused with the reason.
 * A reviewed file that could not be made (an impossible size) asks nothing: there is nothing to see.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, cleanEnv, mediaflow, tempDir, withOwnState } from './helpers.ts';

const exec = promisify(execFile);

const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 1 }
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { color: [red, green] }
    input: { prompt: "A {{color}} mug", aspect_ratio: "1:1" }
  - id: square
    from: still
    review: true
    derive: [{ resize: { width: 64 } }, { format: { type: jpeg } }]
  - id: tiny
    from: still
    review: true
    derive: [{ format: { type: jpeg, max_bytes: 100 } }]
`;

describe('a reviewed derive step', () => {
  it('waits for its files, delivers the approved one and leaves the rejected one out', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    const campaign = uniqueTaskQueue('derive-review');
    await writeFile(join(cwd, 'spec.yaml'), SPEC.replace('CAMPAIGN', campaign));
    const stateDir = join(cwd, 'no-stack');
    await mkdir(stateDir);
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
      MEDIAFLOW_STATE_DIR: stateDir,
    });
    let ended = false;
    const running = exec(process.execPath, [BIN, 'run', 'spec.yaml', '--worker', '--json'], {
      cwd,
      env: withOwnState(cwd, env),
      timeout: 200_000,
    }).finally(() => {
      ended = true;
    });
    const out = join(cwd, 'out');
    const made = async () =>
      (await readdir(join(out, 'square')).catch(() => [])).filter((name) => name.endsWith('.jpg')).sort();
    await expect
      .poll(made, { timeout: 150_000, interval: 1_000 })
      .toEqual(['still-green.jpg', 'still-red.jpg']);

    // Made, and waiting: nothing but the crops' decisions keeps the campaign open.
    const decide = (...args: string[]) => mediaflow(args, { cwd, env });
    // Regenerate cannot make other bytes from the same operations: refused, saying what to edit.
    const regenerate = async () =>
      (await decide('regenerate', campaign, 'square/still-red', '--json')).stdout;
    await expect.poll(regenerate, { timeout: 30_000, interval: 1_000 }).toContain('not_regenerable');
    expect(JSON.parse(await regenerate()).refused[0].message).toContain("edit the derive step's operations");
    expect(ended).toBe(false);
    // status says what the campaign waits for, though no job of the still step waits; the files
    // that could not be made are not among them.
    const status = await decide('status', campaign);
    expect(status.stdout.split('\n')[0]).toMatch(/, 2 awaiting review$/);
    expect(status.stdout).toContain(
      `\nawaiting review: square 2 files; npm run mediaflow -- approve ${campaign} 'square/*'`,
    );
    const approved = await decide('approve', campaign, 'square/still-red', '--note', 'crisp', '--json');
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).accepted).toEqual([
      expect.objectContaining({ name: 'square/still-red' }),
    ]);
    const rejected = await decide('reject', campaign, 'square/still-green', '--json');
    expect(rejected.code, rejected.stdout + rejected.stderr).toBe(0);

    const result = JSON.parse((await running).stdout);
    expect(result.outcome).toBe('completed');
    const exported = await decide('export', campaign, '--derivatives');
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      lines
        .filter((line) => line.state === 'made')
        .map((line) => [line.file, line.review?.action, line.review?.note]),
    ).toEqual([['square/still-red.jpg', 'approve', 'crisp']]);
    // The files that could not be made are listed with their reason, and no decision.
    const failed = lines.filter((line) => line.state === 'failed');
    expect(failed.map((line) => [line.step, line.review])).toEqual([
      ['tiny', undefined],
      ['tiny', undefined],
    ]);
    expect(failed[0].message).toMatch(/^derive_failed: /);
    // Kept where it was made: the next run finds it standing and asks nothing again.
    expect((await stat(join(out, 'square/still-green.jpg'))).size).toBeGreaterThan(0);
  }, 300_000);
});
