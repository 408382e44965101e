/**
 * `run` asks a worker whether it can read the plan and write the output folder before it shows
 * progress (control/check-access.ts). Each verdict against the suite's dev server: a worker that
 * can, a read-only output folder (a read-only tmpfs: the suite runs as root, so a chmod would
 * not stop it), a full one, a plan path the worker does not have, a plan changed since it was
 * stored, and a queue no worker polls.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { PlanRef } from '../../contract/campaign.ts';
import { checkWorkerAccess } from '../../control/check-access.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { suiteWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal.ts';
import { CHAINED_SPEC, type Harness, harness } from './harness.ts';

/** The harness's plan stored, and the check run with a worker polling the harness's queue. */
async function withWorker(h: Harness, check: (ref: PlanRef, outputDir: string) => Promise<unknown>) {
  const plan = await h.plan(CHAINED_SPEC);
  const ref = await storePlan(plan);
  const worker = await createMediaflowWorker({
    connection: h.connection,
    namespace: 'default',
    client: h.service,
    taskQueue: h.taskQueue,
    workflowBundle: suiteWorkflowBundle(),
  });
  return { plan, ref, verdict: await worker.runUntil(check(ref, plan.outputDir)) };
}

async function tmpfs(dir: string, options: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  onTestFinished(() => {
    execFileSync('umount', ['-l', dir]);
  });
}

describe('checkWorkerAccess', () => {
  it('names the worker that can read the plan and write the output folder', async () => {
    const h = await harness();
    const { plan, verdict } = await withWorker(h, (ref, out) =>
      checkWorkerAccess(h.temporal, h.taskQueue, ref, out, { campaign: 'access' }),
    );
    expect(verdict).toEqual({ ok: true, worker: `${hostname()}/${process.pid}` });
    // The probe file is gone again.
    expect((await readdir(plan.outputDir)).filter((f) => f.includes('probe'))).toEqual([]);
  });

  it('a read-only output folder is output_unwritable', async () => {
    const h = await harness();
    const readOnly = join(h.dir, 'read-only');
    await tmpfs(readOnly, 'ro,size=64k');
    const { verdict } = await withWorker(h, (ref) =>
      checkWorkerAccess(h.temporal, h.taskQueue, ref, readOnly),
    );
    expect(verdict).toMatchObject({ ok: false, outcome: 'output_unwritable' });
    expect((verdict as { message: string }).message).toContain('EROFS');
    expect((verdict as { message: string }).message).toContain(readOnly);
  });

  it('a full output folder is disk_full', async () => {
    const h = await harness();
    const full = join(h.dir, 'full');
    await tmpfs(full, 'size=16k');
    await writeFile(join(full, 'filler'), Buffer.alloc(64 * 1024)).catch(() => {}); // fills it (ENOSPC)
    const { verdict } = await withWorker(h, (ref) => checkWorkerAccess(h.temporal, h.taskQueue, ref, full));
    expect(verdict).toMatchObject({ ok: false, outcome: 'disk_full' });
    expect((verdict as { message: string }).message).toContain('ENOSPC');
  });

  it('a plan path the worker does not have is plan_unreadable, and so is a plan changed since it was stored', async () => {
    const h = await harness();
    const { verdict: missing } = await withWorker(h, (ref, out) =>
      checkWorkerAccess(
        h.temporal,
        h.taskQueue,
        { ...ref, file: '/nonexistent/.mediaflow/plans/x.json' },
        out,
      ),
    );
    expect(missing).toMatchObject({ ok: false, outcome: 'plan_unreadable' });
    expect((missing as { message: string }).message).toMatch(/\/nonexistent\/.*ENOENT/);

    const { verdict: changed } = await withWorker(h, async (ref, out) => {
      await writeFile(join(ref.file, 'head.json'), '{}');
      return checkWorkerAccess(h.temporal, h.taskQueue, ref, out);
    });
    expect(changed).toMatchObject({ ok: false, outcome: 'plan_unreadable' });
    expect((changed as { message: string }).message).toMatch(/digest/);
  });

  it('a task queue no worker polls is no_worker, within the wait', async () => {
    const h = await harness();
    const plan = await h.plan(CHAINED_SPEC);
    const ref = await storePlan(plan);
    const started = Date.now();
    const verdict = await checkWorkerAccess(h.temporal, uniqueTaskQueue('nobody'), ref, plan.outputDir, {
      waitMs: 2_000,
    });
    expect(verdict).toMatchObject({ ok: false, outcome: 'no_worker' });
    expect((verdict as { message: string }).message).toContain('mediaflow worker');
    // Bounded by the wait and its slack (5 s), never an open-ended hang.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
