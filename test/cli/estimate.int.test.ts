/**
 * Which emulator `estimate` asks when nothing is configured: the embedded stack's when one runs
 * (its balance is what `run` spends), else a fresh one, said as such.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { cleanEnv, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

describe('mediaflow estimate with nothing configured', () => {
  it('uses the running embedded emulator, whose balance run spends', async () => {
    // An emulator that has spent money stands in for the embedded stack's (same record file).
    const emulator = await startEmulator({ port: 0, timeScale: 0, credits: '12.34' });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', 'priced'));
    const record = { emulator: { pgid: process.pid, baseUrl: emulator.baseUrl, apiKey: emulator.apiKey } };
    await writeFile(join(cwd, 'embedded.json'), JSON.stringify(record));
    const result = await mediaflow(['estimate', 'spec.yaml'], {
      cwd,
      env: cleanEnv({ MEDIAFLOW_STATE_DIR: cwd }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`estimating against the running embedded emulator (${emulator.baseUrl})`);
    expect(result.stdout).toContain('balance: $12.34');
  }, 60_000);

  it('says it priced against a fresh emulator when no embedded stack is running', async () => {
    const cwd = await tempDir();
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', 'priced'));
    // A record left by a stack that is gone does not count.
    const stale = { emulator: { pgid: 1, baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'mfk_gone' } };
    await writeFile(join(cwd, 'embedded.json'), JSON.stringify(stale));
    const result = await mediaflow(['estimate', 'spec.yaml'], {
      cwd,
      env: cleanEnv({ MEDIAFLOW_STATE_DIR: cwd }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no embedded stack is running: priced against a fresh local emulator');
    expect(result.stdout).toContain('balance: $1000.00');
  }, 60_000);
});
