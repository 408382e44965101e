/**
 * `mediaflow run` continuing a campaign an older engine started (docs/engine.md, "Changing the
 * workflow safely"), as a user types it. The older run is one whose memo names no engine; its
 * worker was killed between a job's record and the job's line in manifest.jsonl (records/manifest.ts),
 * the moment the `upgrade` drill met against the real previous release.
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { planIdentity, workflowIdOf } from '../../control/campaign.ts';
import { campaignInputOf } from '../../control/campaign-input.ts';
import { startEmulator } from '../../emulator/index.ts';
import { planCampaign } from '../../plan/index.ts';
import { MANIFEST_FILE, type ManifestEntry } from '../../records/manifest.ts';
import { storePlan } from '../../records/plan-store.ts';
import { openStore, recordKey } from '../../store/index.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { BIN, SPEC, withOwnState } from './helpers.ts';

describe('mediaflow run on a campaign of an older engine', () => {
  it('lists in manifest.jsonl a job the older run recorded but died before listing, and pays it nothing', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const dir = await mkdtemp(join(tmpdir(), 'mediaflow-continue-'));
    await writeFile(join(dir, 'spec.yaml'), SPEC.replace('CAMPAIGN', uniqueTaskQueue('continue')));
    const planned = await planCampaign(join(dir, 'spec.yaml'));
    if (!planned.ok) throw new Error('the spec does not plan');
    const plan = planned.plan;
    const client = await temporalClient();
    // The older engine's run: its memo names no engine, and no worker of ours polls its queue.
    await client.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: workflowIdOf(plan.campaign),
      taskQueue: uniqueTaskQueue('engine-1'),
      args: [campaignInputOf(plan, await storePlan(plan))],
      memo: { planIdentity: planIdentity(plan) },
    });
    // Its worker recorded the red still (file and record) and was killed before the line.
    const red = plan.jobs.find((job) => job.name === 'still-red')!;
    const bytes = Buffer.from('a red mug, already paid for');
    await mkdir(join(plan.outputDir, 'still'), { recursive: true });
    await writeFile(join(plan.outputDir, 'still', 'still-red.png'), bytes);
    const entry: ManifestEntry = {
      key: red.key,
      step: 'still',
      name: red.name,
      model: 'I4',
      input: red.input,
      prediction_id: 'made-by-engine-1',
      credits_used: '0.03',
      file: 'still/still-red.png',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      output_url: 'https://cdn.example/made-by-engine-1.png',
      regenerations: 0,
      created_at: '2026-11-25T00:00:00.000Z',
      finished_at: '2026-11-25T00:00:01.000Z',
      wait_ms: 1000,
      download_ms: 5,
    };
    await openStore(plan.outputDir).createOnce(recordKey(red.key), `${JSON.stringify(entry)}\n`);

    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: emulator.baseUrl,
      MEDIAFLOW_API_KEY: emulator.apiKey,
    };
    const { stderr } = await promisify(execFile)(process.execPath, [BIN, 'run', 'spec.yaml', '--worker'], {
      cwd: dir,
      env: withOwnState(dir, env),
      timeout: 60_000,
    });
    expect(stderr).toContain('continued from its records on engine');
    const lines = (await readFile(join(plan.outputDir, MANIFEST_FILE), 'utf8')).trim().split('\n');
    const listed = lines.map((line) => (JSON.parse(line) as ManifestEntry).key).sort();
    expect(listed).toEqual(plan.jobs.map((job) => job.key).sort());
    expect(emulator.ledger().predictionsCreated).toBe(2);
  });
});
