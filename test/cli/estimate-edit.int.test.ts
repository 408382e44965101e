/**
 * After an edit, `estimate` and `plan` read the campaign's records and name what the re-run will
 * cost before anything is paid: the recorded jobs are free, the edited one is made again at its
 * price, an approval recorded for the edited job's old output is named as voided; and `run`'s
 * first line then says the same cost. Child processes, as a user types them, against the suite's
 * Temporal and an emulator given by MEDIAFLOW_API_URL.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { writeDecisions } from '../../records/decisions.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { cleanEnv, mediaflow, SPEC as STILLS, tempDir } from './helpers.ts';

/** helpers' three I4 stills and one I3 hero ($0.03 each, $0.25): $0.34 in all. */
const SPEC = `${STILLS}  - id: hero
    model: I3
    input: { prompt: "HERO" }
`;

describe('estimate and plan after an edit', () => {
  it('name the re-run cost, the free recorded jobs and the voided approval before anything is paid', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    const campaign = uniqueTaskQueue('edit');
    const spec = SPEC.replace('CAMPAIGN', campaign);
    await writeFile(join(cwd, 'spec.yaml'), spec.replace('HERO', 'A hero mug'));
    const env = cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
    });
    const cli = (...args: string[]) => mediaflow(args, { cwd, env });

    const before = await cli('estimate', 'spec.yaml');
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('records in out: none of these jobs yet; all 4 to run, $0.34');
    const first = await cli('run', 'spec.yaml', '--worker');
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('4 of 4 jobs to run, $0.34');

    // The hero was approved (as the review page records it), then its prompt edited.
    const lines = (await readFile(join(cwd, 'out', 'manifest.jsonl'), 'utf8')).trim().split('\n');
    const hero = lines.map((line) => JSON.parse(line)).find((entry) => entry.step === 'hero');
    await writeDecisions(join(cwd, 'out'), campaign, [
      {
        key: hero.key,
        action: 'approve',
        take: 0,
        at: '2026-11-27T09:00:00.000Z',
        source: 'reviewer',
        by: 'ana',
      },
    ]);
    await writeFile(join(cwd, 'spec.yaml'), spec.replace('HERO', 'A hero mug, lit from the left'));
    const paidBefore = emulator.ledger().predictionsCreated;

    const estimate = await cli('estimate', 'spec.yaml');
    expect(estimate.code).toBe(0);
    expect(estimate.stdout).toContain(
      'records in out: 3 of 4 jobs recorded with their files (free); 1 to run, $0.25: 1 edited since recorded',
    );
    expect(estimate.stdout).toContain('approvals this plan voids: 1 (hero/');
    expect(estimate.stdout).toContain('ok: $0.25 fits');
    const json = JSON.parse((await cli('estimate', 'spec.yaml', '--json')).stdout);
    expect(json).toMatchObject({
      service_total_usd: '0.34',
      recorded_jobs: 3,
      to_run: { jobs: 1, usd: '0.25', edited: 1, new: 0, lost: 0 },
      voided_approvals: [{ step: 'hero', key: hero.key, replaced: true, by: 'ana' }],
    });

    const plan = await cli('plan', 'spec.yaml');
    expect(plan.stdout).toContain('3 of 4 jobs recorded with their files (free); 1 to run, $0.25');
    const planJson = JSON.parse((await cli('plan', 'spec.yaml', '--json')).stdout);
    expect(planJson).toMatchObject({ recorded_jobs: 3, to_run: { jobs: 1, usd: '0.25', edited: 1 } });
    // Nothing was paid to say so.
    expect(emulator.ledger().predictionsCreated).toBe(paidBefore);

    // run starts with the cost estimate named, and pays it.
    const rerun = await cli('run', 'spec.yaml', '--worker');
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('1 of 4 jobs to run, $0.25');
    expect(emulator.ledger().predictionsCreated).toBe(paidBefore + 1);
    // Run to its end, the plan voids nothing and nothing is left.
    const after = await cli('estimate', 'spec.yaml', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ recorded_jobs: 4, to_run: { jobs: 0, usd: '0.00' } });
    expect(JSON.parse(after.stdout).voided_approvals).toEqual([]);
  }, 180_000);
});
