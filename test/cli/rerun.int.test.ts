/**
 * A re-run of a finished campaign as a user types it: with nothing left to make, the records
 * answer (no workflow run, no create, nothing paid or in flight); with a file lost, only that job
 * costs anything, restored from its prediction or, once the service forgot it, made again.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readCredential } from '../../activities/provenance/credentials/read.ts';
import { campaignHandle } from '../../control/campaign.ts';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient, uniqueTaskQueue } from '../helpers/temporal.ts';
import { cleanEnv, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

async function setup() {
  const emulator = await startEmulator({ port: 0, timeScale: 0 });
  onTestFinished(() => emulator.close());
  const dir = await tempDir();
  const campaign = uniqueTaskQueue('rerun');
  await writeSpec(dir, SPEC.replace('CAMPAIGN', campaign));
  const client = await temporalClient();
  const envOf = (service: { baseUrl: string; apiKey: string }) =>
    cleanEnv({
      TEMPORAL_ADDRESS: temporalAddress(),
      MEDIAFLOW_API_URL: service.baseUrl,
      MEDIAFLOW_API_KEY: service.apiKey,
    });
  const run = (service = emulator, ...args: string[]) =>
    mediaflow(['run', 'spec.yaml', '--worker', ...args], { cwd: dir, env: envOf(service) });
  /** The id of the campaign's latest workflow run: a re-run the records answer starts none. */
  const latestRun = async () => (await campaignHandle(client, campaign).describe()).runId;
  return { emulator, dir, campaign, run, latestRun, envOf };
}

describe('mediaflow run again', () => {
  it('answers an unchanged re-run from the records: no workflow, no create, nothing paid or in flight', async () => {
    const { emulator, dir, campaign, run, latestRun, envOf } = await setup();
    const first = await run();
    expect(first.code).toBe(0);
    expect(emulator.ledger().predictionsCreated).toBe(3);
    const runId = await latestRun();

    const again = await run(emulator, '--json');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 of 3 jobs to run, $0.00');
    expect(emulator.ledger().predictionsCreated).toBe(3);
    expect(await latestRun()).toBe(runId);
    // The same summary a finished run prints: every job cached, $0 this run, the campaign's total.
    const summary = JSON.parse(again.stdout);
    expect(summary).toMatchObject({
      outcome: 'completed',
      spent: '0.00',
      committed: '0.00',
      in_flight: '0.00',
      campaign_spent: '0.09',
    });
    expect(summary.steps).toEqual([
      expect.objectContaining({ id: 'still', planned: 3, cached: 3, succeeded: 0, created: 0, running: 0 }),
    ]);

    const text = await run();
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/still\s+I4\s+3\s+0\s+3/);
    expect(text.stdout).toContain('spent $0.00 in this run ($0.09 in all runs)');
    expect(text.stdout).not.toContain('in flight');
    expect(emulator.ledger().predictionsCreated).toBe(3);

    // No worker runs now (each run's own stopped with it): status reads the finished workflow's
    // result, the run that made the files, and the records' total.
    const status = await mediaflow(['status', campaign, '--json'], { cwd: dir, env: envOf(emulator) });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      outcome: 'completed',
      spent: '0.09',
      campaign_spent: '0.09',
    });
  }, 120_000);

  it('a lost file costs only its job: fetched again from its prediction, else made again alone', async () => {
    const { emulator, dir, run, latestRun } = await setup();
    expect((await run()).code).toBe(0);
    const file = join(dir, 'out', 'still', 'still-red.png');
    const bytes = await readFile(file);

    // The service still has the prediction: its output comes back, nothing is created.
    await rm(file);
    const runId = await latestRun();
    const restored = await run();
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain('fetched again from their predictions: still-red');
    // Signed again (C2PA salts each signature): as many bytes, a manifest that validates for the job.
    const again = await readFile(file);
    expect(again.length).toBe(bytes.length);
    expect(await readCredential(again, 'image/png')).toMatchObject({
      state: 'valid',
      mediaflow: { take: 0 },
    });
    expect(emulator.ledger()).toMatchObject({ predictionsCreated: 3, duplicates: 0 });
    expect(await latestRun()).toBe(runId);

    // A service that forgot it (another deployment): the one job is made again by a workflow run.
    await rm(file);
    const fresh = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => fresh.close());
    const remade = await run(fresh);
    expect(remade.code).toBe(0);
    expect(remade.stderr).toContain('output lost, to be generated again: still-red');
    expect(remade.stderr).toContain('1 of 3 jobs to run, $0.03');
    expect(fresh.ledger()).toMatchObject({ predictionsCreated: 1, duplicates: 0 });
    expect(remade.stdout).toMatch(/still\s+I4\s+3\s+1\s+2/);
    expect(await latestRun()).not.toBe(runId);
    expect((await readFile(file)).length).toBeGreaterThan(0);
  }, 150_000);
});
