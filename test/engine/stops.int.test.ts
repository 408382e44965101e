/**
 * Conditions of the whole campaign end it with a named outcome the user can act on, never an
 * endless retry; after the fix, running the same spec again finishes it, each job paid once.
 * The full disk is a real one: a tmpfs of a few pages mounted over the output folder (the suite
 * runs as root, as CI does). The full-size drills are `npm run drill -- disk-full|key-deleted`
 * (bench/drills/stops.ts, sharing these helpers: bench/drills/stop-kit.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createServiceClient } from '../../api/client/index.ts';
import {
  deleteKeysExcept,
  mountTmpfs,
  paidOnce,
  remountReadOnly,
  resizeTmpfs,
  unmountTmpfs,
} from '../../bench/drills/stop-kit.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { suiteWorkflowBundle } from '../helpers/temporal.ts';
import { harness } from './harness.ts';

const IMAGES = (count: number) => `
version: 1
campaign: stops
concurrency: 4
output: { dir: out }
steps:
  - id: still
    model: I4
    repeat: ${count}
    input: { prompt: "Acme sneaker on marble", aspect_ratio: "1:1" }
`;

describe('campaign stops', () => {
  it('a full output disk stops it with disk_full; once space is freed the same spec finishes, each job paid once', async () => {
    const h = await harness();
    const out = join(h.dir, 'out');
    await mkdir(out);
    // 16 pages: the plan, the claims, the manifest and about a dozen stills fit, 24 do not.
    mountTmpfs(out, '64k');
    onTestFinished(() => unmountTmpfs(out));
    const plan = await h.plan(IMAGES(24));

    const stopped = await h.run(plan);
    expect(stopped.outcome).toBe('disk_full');
    expect(stopped.stopMessage).toMatch(/ENOSPC/);
    // The disk may fill before the first still is saved, and then its folder was never made.
    const files = await readdir(join(out, 'still')).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    expect(files.filter((f) => f.endsWith('.png')).length).toBeLessThan(24);

    resizeTmpfs(out, '4m');
    // Predictions made before the disk filled are adopted from the claims, not created again by
    // their idempotency keys: this service now forgets every key.
    h.emulator.setIgnoreIdempotency(true);
    const finished = await h.run(plan);
    expect(finished.outcome).toBe('completed');
    expect(await h.manifest(plan)).toHaveLength(24);
    // Each job's prediction was created once, the ones made before the disk filled included.
    expect(paidOnce(h.emulator.ledger(), 24)).toMatchObject({ ok: true });
  });

  it('an output disk turned read-only mid-run stops it with output_unwritable; made writable, the same spec finishes, each job paid once', async () => {
    const h = await harness({ latencyMs: 300, jitter: false });
    const out = join(h.dir, 'out');
    await mkdir(out);
    mountTmpfs(out, '4m');
    onTestFinished(() => unmountTmpfs(out));
    const plan = await h.plan(IMAGES(16));
    const stopped = await h.run(plan, async () => {
      while ((await h.manifest(plan)).length < 2) await new Promise((r) => setTimeout(r, 50));
      // What an operator's remount, or a disk error the kernel answers with, does (EROFS).
      await remountReadOnly(out);
    });
    expect(stopped.outcome).toBe('output_unwritable');
    expect(stopped.stopMessage).toMatch(/EROFS/);

    execFileSync('mount', ['-o', 'remount,rw', out]);
    const finished = await h.run(plan);
    expect(finished.outcome).toBe('completed');
    expect(await h.manifest(plan)).toHaveLength(16);
    expect(paidOnce(h.emulator.ledger(), 16)).toMatchObject({ ok: true });
  });

  it('an account that runs dry stops it with balance_exhausted; topped up, the same spec finishes, each job paid once', async () => {
    // $0.20 of credits for 16 stills at $0.03: about six are paid, then the service answers 402.
    const h = await harness({ credits: '0.20' });
    const plan = await h.plan(IMAGES(16));
    const stopped = await h.run(plan);
    expect(stopped.outcome).toBe('balance_exhausted');
    expect(stopped.stopMessage).toBeTruthy();
    const paid = (await h.manifest(plan)).length;
    expect(paid).toBeGreaterThan(0);
    expect(paid).toBeLessThan(16);

    h.emulator.addCredits('5.00');
    const finished = await h.run(plan);
    expect(finished.outcome).toBe('completed');
    expect(await h.manifest(plan)).toHaveLength(16);
    // What the first run made is not made again: 16 predictions in all, one per job.
    expect(paidOnce(h.emulator.ledger(), 16)).toMatchObject({ ok: true });
  });

  it('a key deleted mid-run stops it with authentication_failed; with a new key the same spec finishes, each job paid once', async () => {
    const h = await harness({ latencyMs: 300, jitter: false });
    const plan = await h.plan(IMAGES(16));
    const created = await h.service.apiKeys.create('replacement');
    const replacement = created.key!;
    const admin = createServiceClient({ baseUrl: h.emulator.baseUrl, apiKey: replacement });
    onTestFinished(() => admin.close());

    const stopped = await h.run(plan, async () => {
      // Some files first, so the key is known to have worked.
      while ((await h.manifest(plan)).length < 2) await new Promise((r) => setTimeout(r, 50));
      await deleteKeysExcept(admin, created.id);
    });
    expect(stopped.outcome).toBe('authentication_failed');
    expect(stopped.stopMessage).toBeTruthy();

    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace: 'default',
      client: admin,
      taskQueue: h.taskQueue,
      workflowBundle: suiteWorkflowBundle(),
    });
    const handle = await h.start(plan);
    const finished = await worker.runUntil(handle.result());
    expect(finished.outcome).toBe('completed');
    expect(await h.manifest(plan)).toHaveLength(16);
    // The new key adopted what the deleted one created: idempotency keys belong to the account.
    expect(paidOnce(h.emulator.ledger(), 16)).toMatchObject({ ok: true });
  });
});
