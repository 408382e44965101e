/** The three commands as a user runs them: exit codes, stdout and stderr. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

const stateDir = mkdtempSync(join(tmpdir(), 'mediaflow-commands-'));

async function mediaflow(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'cli/main.ts', ...args],
      {
        cwd: root,
        // A state folder of its own: an embedded stack the README's example left running must not
        // change what estimate says here.
        env: { ...process.env, MEDIAFLOW_API_URL: '', MEDIAFLOW_STATE_DIR: stateDir },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('mediaflow validate / plan / estimate', () => {
  it('validate prints one ok line, or every problem as file:line:col on stderr with exit 1', async () => {
    const ok = await mediaflow('validate', 'specs/product-launch.yaml');
    expect(ok).toMatchObject({ code: 0, stdout: 'ok: 30 jobs, $10.20\n' });
    const broken = await mediaflow('validate', 'test/fixtures/specs/broken/13-chain-cycle.yaml');
    expect(broken.code).toBe(1);
    expect(broken.stderr.split('\n').slice(0, 2)).toEqual([
      'test/fixtures/specs/broken/13-chain-cycle.yaml:6:11: chain cycle: a → b → a; a step cannot (indirectly) follow itself',
      'test/fixtures/specs/broken/13-chain-cycle.yaml:10:11: chain cycle: b → a → b; a step cannot (indirectly) follow itself',
    ]);
  });

  it('plan --json lists every job with money as decimal strings', async () => {
    const { code, stdout } = await mediaflow('plan', 'specs/product-launch.yaml', '--json');
    expect(code).toBe(0);
    const plan = JSON.parse(stdout);
    expect(plan.total_usd).toBe('10.20');
    expect(plan.jobs).toHaveLength(30);
    expect(plan.jobs[1]).toMatchObject({ step: 'teaser', model: 'V4', from: plan.jobs[0].key, usd: '0.25' });
  });

  it('estimate without a configured service uses the embedded emulator and says so', async () => {
    const { code, stdout, stderr } = await mediaflow('estimate', 'specs/product-launch.yaml', '--json');
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /MEDIAFLOW_API_URL is not set and no embedded stack is running: priced against a fresh local emulator/,
    );
    expect(JSON.parse(stdout)).toMatchObject({
      service_total_usd: '10.20',
      over_budget: false,
      disagreements: [],
    });
  });
});
