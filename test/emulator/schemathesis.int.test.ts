/**
 * The emulator's OpenAPI document, checked by a client nobody here wrote: Schemathesis generates
 * requests from /v1/openapi.json (valid and invalid ones, undeclared methods, missing auth) and
 * fails on any reply the document does not promise. Bounded so it stays a unit test: a fixed seed
 * (the same cases every run) and a fixed number of examples per operation.
 * Installed by `npm run setup` (scripts/pip-tool.sh, pinned in package.json "setup").
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { UNHURRIED } from '../helpers/emulator.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, '.tools/schemathesis-venv/bin/schemathesis');
const CONFIG = join(import.meta.dirname, 'schemathesis.toml');
const SEED = '20260101';
const MAX_EXAMPLES = '12';

describe('the OpenAPI document, fuzzed by Schemathesis', () => {
  let emulator: RunningEmulator;
  let workDir: string;

  beforeAll(async () => {
    // Enough credits and limits that no valid request is refused for being one too many.
    emulator = await startEmulator({
      timeScale: 0,
      seed: 7,
      credits: '1000000.00',
      limits: { ...UNHURRIED, maxInFlight: 100_000 },
    });
    // Schemathesis keeps a Hypothesis database in its working directory: not in the repository.
    workDir = mkdtempSync(join(tmpdir(), 'mediaflow-schemathesis-'));
  });
  afterAll(async () => {
    await emulator?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('finds nothing with every check on', { timeout: 240_000 }, async () => {
    expect(existsSync(CLI), `${CLI} is missing: run npm run setup`).toBe(true);
    const spare = await fetch(`${emulator.baseUrl}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rotated by schemathesis' }),
    });
    const spareId = ((await spare.json()) as { id: string }).id;
    const args = [
      `--config-file=${CONFIG}`,
      'run',
      `${emulator.baseUrl}/openapi.json`,
      `--header=Authorization: Bearer ${emulator.apiKey}`,
      '--checks=all',
      `--seed=${SEED}`,
      `--max-examples=${MAX_EXAMPLES}`,
      // Two cores are shared with other work: one worker keeps the run's load predictable.
      '--workers=1',
      '--no-color',
    ];
    const run = await promisify(execFile)(CLI, args, {
      cwd: workDir,
      env: { ...process.env, MEDIAFLOW_ST_SPARE_KEY_ID: spareId },
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      (done) => ({ code: 0, output: done.stdout + done.stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    // The whole report on failure: it names each finding and the curl that reproduces it.
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/No issues found|passed/);
  });
});
