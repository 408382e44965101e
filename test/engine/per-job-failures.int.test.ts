/**
 * A condition of one job (an input the service refuses for good, an output link that is gone)
 * fails that job with its reason and nothing else: the other jobs of the same 50-job batch
 * succeed. Limits are raised so the 50 creates go out as one batch request.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { downloadFile } from '../../activities/download.ts';
import { createActivities } from '../../activities/index.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';
import type { Plan } from '../../plan/types.ts';
import { activityDeps } from '../../worker/create-worker.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { type Harness, harness } from './harness.ts';

const BATCH = 50;
const LIMITS = { createsPerMinute: 60_000, maxInFlight: 200 };

/** 49 text-to-image stills and one more job (`extra`), all ready at once. */
const spec = (extra: string) => `
version: 1
campaign: per-job
concurrency: ${BATCH}
output: { dir: out }
steps:
  - id: still
    model: I4
    retries: 0
    matrix: { item: [${Array.from({ length: BATCH - 1 }, (_, i) => `s${i}`).join(', ')}] }
    input: { prompt: "Catalogue still {{item}}" }
${extra}`;

/** Runs the plan with a worker whose downloads go through `download` (default: the real one). */
async function run(h: Harness, plan: Plan, download = downloadFile): Promise<CampaignProgress> {
  const handle = await h.start(plan);
  const worker = await Worker.create({
    connection: h.connection,
    namespace: 'default',
    taskQueue: h.taskQueue,
    workflowBundle: suiteWorkflowBundle(),
    activities: createActivities(activityDeps(h.service, { download })),
  });
  return worker.runUntil(handle.result());
}

function batchRequests(h: Harness): number {
  return h.emulator.ledger().requests['POST /v1/predictions/batch']?.['200'] ?? 0;
}

describe('a condition of one job fails that job only', () => {
  // KNOWN BUG, kept visible: the upload's final refusal (413) is thrown out of the create
  // activity's input resolution (activities/create/prepare.ts), so the whole batch of 50
  // fails with it. Verified passing with prepare() answering a non-retryable ServiceError as
  // that job's `rejected` outcome; drop `.fails` with that fix.
  it('an input image the service refuses for good fails its job; the other 49 of the batch succeed', async () => {
    const h = await harness({ limits: LIMITS });
    // A PNG larger than the service's 10 MiB upload limit: the plan accepts it, the service never will.
    const big = Buffer.alloc(11 * 1024 * 1024);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(big);
    await writeFile(join(h.dir, 'huge.png'), big);
    const plan = await h.plan(
      spec(`  - id: edit
    model: I1
    retries: 0
    input: { prompt: "Acme sneaker, recoloured", input_image: ./huge.png }
`),
    );
    expect(plan.jobs).toHaveLength(BATCH);

    const progress = await run(h, plan);

    expect(progress.outcome).toBe('completed');
    expect(progress.steps.map((s) => [s.id, s.succeeded, s.failed, s.skipped])).toEqual([
      ['still', BATCH - 1, 0, 0],
      ['edit', 0, 1, 0],
    ]);
    expect(progress.recentFailures).toHaveLength(1);
    expect(progress.recentFailures[0]!.message).toMatch(/too large/);
    expect(await h.manifest(plan)).toHaveLength(BATCH - 1);
    expect(h.emulator.ledger().predictionsCreated).toBe(BATCH - 1);
  });

  it('an output link that is gone (404) fails its job; the other 49 of the batch succeed', async () => {
    const h = await harness({ limits: LIMITS });
    const plan = await h.plan(
      spec(`  - id: doomed
    model: I4
    retries: 0
    input: { prompt: "The one whose link is gone" }
`),
    );
    const doomed = plan.jobs.find((j) => j.step === 'doomed')!;
    let gone = 0;
    // The CDN answers 404 for this job's output, as when a link expired before the download.
    const download: typeof downloadFile = (url, target, options) => {
      // Outputs are staged under their job's key before they are recorded (records/staged-outputs.ts).
      if (!target.key.includes(doomed.key)) return downloadFile(url, target, options);
      gone++;
      return downloadFile(`${new URL(url).origin}/cdn/outputs/expired-${doomed.key}.png`, target, options);
    };

    const progress = await run(h, plan, download);

    expect(progress.outcome).toBe('completed');
    expect(progress.steps.map((s) => [s.id, s.succeeded, s.failed, s.skipped])).toEqual([
      ['still', BATCH - 1, 0, 0],
      ['doomed', 0, 1, 0],
    ]);
    expect(gone).toBeGreaterThan(0);
    expect(progress.recentFailures).toHaveLength(1);
    expect(progress.recentFailures[0]!.job).toBe(doomed.name);
    expect(progress.recentFailures[0]!.message).toMatch(/404/);
    expect(await h.manifest(plan)).toHaveLength(BATCH - 1);
    // It went out as a batch, and nothing was created twice.
    expect(batchRequests(h)).toBeGreaterThan(0);
    expect(h.emulator.ledger().predictionsCreated).toBe(BATCH);
  });
});
