/**
 * One JSON style across every `--json` output (docs/cli.md, "JSON output"): keys in snake_case,
 * money as decimal strings without a sign. Every command with `--json` is run as a user runs it
 * (a reviewed campaign, decided from another terminal, against the suite's Temporal and an
 * emulator), and every key and every money value of what it prints is checked.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
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
    review: { timeout: 72h, on_timeout: reject }
`;

/** Values under these keys are the spec's own data (a model input, a price condition). */
const VERBATIM = new Set(['input', 'when']);
const MONEY_KEY = /(_usd|^spent|^committed|^in_flight|^budget|^campaign_spent)$/;

/** Every key that is not snake_case, and every money value that is not a plain decimal string. */
function offStyle(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => offStyle(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' && /^-?\$\d/.test(value) ? [`${path}: ${value} has a sign`] : [];
  }
  return Object.entries(value).flatMap(([key, item]) => {
    const at = `${path}.${key}`;
    const problems = /^[a-z][a-z0-9_]*$/.test(key) ? [] : [`${at}: not snake_case`];
    if (MONEY_KEY.test(key) && item !== null && !(typeof item === 'string' && /^\d+\.\d{2,}$/.test(item)))
      problems.push(`${at}: ${JSON.stringify(item)} is not a decimal string`);
    return VERBATIM.has(key) ? problems : [...problems, ...offStyle(item, at)];
  });
}

describe('every --json output', () => {
  it('has snake_case keys and money as decimal strings without a sign', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    const campaign = uniqueTaskQueue('json');
    await writeFile(join(cwd, 'spec.yaml'), SPEC.replace('CAMPAIGN', campaign));
    await writeFile(join(cwd, 'bad.yaml'), SPEC.replace('CAMPAIGN', campaign).replace('I4', 'I9'));
    const stateDir = join(cwd, 'no-stack');
    await mkdir(stateDir);
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
      MEDIAFLOW_STATE_DIR: stateDir,
    });
    const outputs = new Map<string, unknown>();
    const json = async (...args: string[]) => {
      const result = await mediaflow(args, { cwd, env });
      expect(result.stdout, `${args.join(' ')}: ${result.stderr}`).not.toBe('');
      outputs.set(args.join(' '), JSON.parse(result.stdout));
      return { ...result, json: JSON.parse(result.stdout) };
    };

    // `run` waits for the decisions: longer than the helper's 60 s limit on a loaded machine.
    const running = exec(process.execPath, [BIN, 'run', 'spec.yaml', '--worker', '--json'], {
      cwd,
      env: withOwnState(cwd, env),
      timeout: 200_000,
    });
    // Decided from another terminal once both stills await review.
    const awaiting = async () => {
      const status = await mediaflow(['status', campaign, '--json'], { cwd, env });
      return status.code === 0 ? (JSON.parse(status.stdout).awaiting_review?.length ?? 0) : 0;
    };
    await expect.poll(awaiting, { timeout: 150_000, interval: 1_000 }).toBe(2);
    expect((await json('approve', campaign, 'still-red', '--json')).code).toBe(0);
    expect((await json('reject', campaign, 'still-green', '--json')).code).toBe(0);
    outputs.set('run --json', JSON.parse((await running).stdout));

    await json('status', campaign, '--json');
    await json('report', campaign, '--json');
    await json('estimate', 'spec.yaml', '--json');
    await json('plan', 'spec.yaml', '--json');
    await json('validate', 'spec.yaml', '--json');
    await json('validate', 'bad.yaml', '--json');
    await json('models', '--json');
    await json('stack', 'status', '--json');

    for (const [command, output] of outputs) expect(offStyle(output), command).toEqual([]);
    // The money this campaign spent, as every output says it: one still approved, one rejected.
    const status = outputs.get(`status ${campaign} --json`) as Record<string, unknown>;
    expect(status).toMatchObject({ spent: '0.06', campaign_spent: '0.06' });
    expect(Object.keys(status)).toEqual(expect.arrayContaining(['recent_failures', 'eta_ms', 'started_at']));
  }, 360_000);
});
