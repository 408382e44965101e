/**
 * Operators find and read campaigns with Temporal's own tools: the workflow carries mediaflow's
 * search attributes (a canceled campaign, which completes by design, is found by
 * `MediaflowOutcome="canceled"` with the real `temporal` CLI), a summary and details saying what
 * it runs, and activity summaries naming their jobs; one that met faults is found by them. A
 * namespace without the attributes registered still runs campaigns, unsearchable.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { replayCampaign } from '../../bench/lib/replay.ts';
import type { CampaignInput } from '../../contract/campaign.ts';
import { startOrAttach } from '../../control/campaign.ts';
import { campaignView } from '../../control/campaign-view.ts';
import { registerSearchAttributes, searchAttributesRegistered } from '../../control/registered-attributes.ts';
import { storePlan } from '../../records/plan-store.ts';
import { createMediaflowWorker } from '../../worker/create-worker.ts';
import { findTemporalCli } from '../../worker/temporal-cli.ts';
import type { campaignWorkflow } from '../../workflows/runtime/campaign.ts';
import {
  BUDGET_USD_KEY,
  CAMPAIGN_KEY,
  cliTypeOf,
  FAULTS_KEY,
  JOBS_DONE_KEY,
  JOBS_FAILED_KEY,
  JOBS_PLANNED_KEY,
  OUTCOME_KEY,
  SEARCH_ATTRIBUTE_KEYS,
  SPEC_DIGEST_KEY,
  SPENT_USD_KEY,
} from '../../workflows/runtime/search-attributes.ts';
import { suiteWorkflowBundle, temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';
import { harness } from './harness.ts';

const run = promisify(execFile);

/** 12 stills (I4), two in flight, 800 ms each: long enough to cancel halfway. */
const STILLS = `
version: 1
campaign: findable
budget: { max_usd: 5 }
concurrency: 2
output: { dir: out }
steps:
  - id: hero
    model: I4
    matrix: { product: [sneaker, watch, lamp, chair, mug, bag, hat, shoe, desk, pen, cup, kite] }
    input: { prompt: "Acme {{product}} on marble", aspect_ratio: "1:1" }
`;

type Handle = WorkflowHandle<typeof campaignWorkflow>;

/** `temporal workflow list --query …` on the suite's server, as an operator types it. */
async function listWorkflows(
  query: string,
  namespace = 'default',
): Promise<{ execution: { workflowId: string }; status: string }[]> {
  const cli = await findTemporalCli();
  const { stdout } = await run(cli, [
    'workflow',
    'list',
    '--address',
    temporalAddress(),
    '--namespace',
    namespace,
    '--query',
    query,
    '--output',
    'json',
  ]);
  const text = stdout.trim();
  return text ? JSON.parse(text) : [];
}

/** Visibility follows the history a moment later: ask until the answer has `count` rows. */
async function listEventually(query: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await listWorkflows(query);
    if (rows.length === count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The summary of every activity the run scheduled, in order. */
async function activitySummaries(handle: Handle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => {
      const payload = event.userMetadata?.summary;
      return payload ? defaultPayloadConverter.fromPayload<string>(payload) : '';
    });
}

async function doneOf(client: Client, handle: Handle): Promise<number> {
  const view = await campaignView(client, handle).catch(() => null);
  return view ? view.progress.steps.reduce((n, step) => n + step.succeeded, 0) : 0;
}

describe('operating a campaign with Temporal tools', () => {
  it('a canceled campaign is found by MediaflowOutcome="canceled", says what it is and names its jobs', async () => {
    const h = await harness({ timeScale: 1, latencyMs: 800, jitter: false });
    const plan = await h.plan(STILLS);
    expect(await searchAttributesRegistered(h.temporal)).toBe(true);

    const progress = await h.run(plan, async (handle) => {
      const deadline = Date.now() + 30_000;
      while ((await doneOf(h.temporal, handle)) < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await handle.cancel();
    });
    expect(progress.outcome).toBe('canceled');

    const campaign = `MediaflowCampaign="${plan.campaign}"`;
    const found = await listEventually(`${campaign} AND MediaflowOutcome="canceled"`, 1);
    expect(found.map((row) => row.execution.workflowId)).toEqual([`mediaflow-${plan.campaign}`]);
    // Temporal itself says Completed: the outcome is what tells a canceled campaign apart.
    expect(found[0]!.status).toMatch(/COMPLETED/);
    expect(await listWorkflows(`${campaign} AND MediaflowOutcome="running"`)).toEqual([]);
    expect(
      await listWorkflows(`${campaign} AND MediaflowJobsDone >= 2 AND MediaflowSpentUsd > 0`),
    ).toHaveLength(1);

    const handle = h.temporal.workflow.getHandle<typeof campaignWorkflow>(`mediaflow-${plan.campaign}`);
    const described = await handle.describe();
    const attribute = <T>(key: { name: string }) =>
      described.typedSearchAttributes.getAll().find((pair) => pair.key.name === key.name)?.value as T;
    const done = progress.steps[0]!.succeeded;
    expect(attribute(CAMPAIGN_KEY)).toBe(plan.campaign);
    expect(attribute(OUTCOME_KEY)).toBe('canceled');
    expect(attribute(SPEC_DIGEST_KEY)).toMatch(/^[0-9a-f]{32}$/);
    expect(attribute(JOBS_PLANNED_KEY)).toBe(12);
    expect(attribute(JOBS_DONE_KEY)).toBe(done);
    const [step] = progress.steps;
    expect(attribute(JOBS_FAILED_KEY)).toBe(step!.failed + step!.skipped + step!.canceled);
    expect(attribute(SPENT_USD_KEY)).toBeCloseTo(progress.spent / 1_000_000, 6);
    expect(attribute(BUDGET_USD_KEY)).toBe(5);

    // What the UI and CLI show: the campaign in one line and in detail, and each activity's jobs.
    expect(await described.staticSummary()).toMatch(
      new RegExp(`^${plan.campaign}: 12 jobs \\(hero 12 × I4\\), budget \\$5\\.00, spec [0-9a-f]{12}$`),
    );
    expect(await described.staticDetails()).toContain(`MediaflowCampaign="${plan.campaign}"`);
    const summaries = await activitySummaries(handle);
    expect(summaries[0]).toBe("read the service's rate limits");
    expect(summaries).toContain('load jobs 1–12 of 12');
    expect(summaries.some((s) => /^create \d+: hero-\w+/.test(s))).toBe(true);
    // Finishes name their jobs, one ("finish hero-…") or a batch ("finish 3: hero-…, …").
    const finished = summaries.map((s) => /^finish (?:(\d+): )?hero-/.exec(s)).filter((m) => m !== null);
    expect(finished.reduce((n, m) => n + Number(m[1] ?? 1), 0)).toBeGreaterThanOrEqual(2);
    expect(summaries).toContain('cancel the predictions this campaign claimed, upstream');

    expect(await replayCampaign(h.temporal, `mediaflow-${plan.campaign}`)).toMatchObject({ failures: [] });
  });

  it('a campaign that met a content refusal is found by MediaflowFaults="refused", with its count', async () => {
    const h = await harness({ timeScale: 0 });
    const plan = await h.plan(`
version: 1
campaign: faulty
output: { dir: out }
steps:
  - id: hero
    model: I4
    matrix: { product: ["sneaker [flag]", watch, lamp] }
    input: { prompt: "Acme {{product}} on marble" }
`);
    const progress = await h.run(plan);
    expect(progress.steps[0]).toMatchObject({ succeeded: 2, refused: 1 });
    const campaign = `MediaflowCampaign="${plan.campaign}"`;
    expect(await listEventually(`${campaign} AND MediaflowFaults="refused"`, 1)).toHaveLength(1);
    expect(await listWorkflows(`${campaign} AND MediaflowFaults="download_failed"`)).toEqual([]);
    const described = await h.temporal.workflow.getHandle(`mediaflow-${plan.campaign}`).describe();
    const faults = described.typedSearchAttributes.getAll().find((pair) => pair.key.name === FAULTS_KEY.name);
    expect(faults?.value).toEqual(['refused', 'refused:1']);
  });

  it('a namespace without the attributes registered runs campaigns all the same', async () => {
    const h = await harness({ timeScale: 0 });
    const plan = await h.plan(STILLS.replace('campaign: findable', 'campaign: plain'));
    const namespace = `plain-${uniqueTaskQueue('ns').slice(-8)}`;
    await run(await findTemporalCli(), [
      'operator',
      'namespace',
      'create',
      '--address',
      temporalAddress(),
      '--namespace',
      namespace,
    ]);
    const connection = await Connection.connect({ address: temporalAddress() });
    onTestFinished(() => connection.close());
    const client = new Client({ connection, namespace });
    expect(await searchAttributesRegistered(client)).toBe(false);

    const ref = await storePlan(plan);
    const taskQueue = uniqueTaskQueue('plain');
    // A namespace just created reaches every part of the server within a few seconds.
    let handle: Handle | undefined;
    for (const deadline = Date.now() + 20_000; !handle; ) {
      try {
        handle = (await startOrAttach(client, plan, ref, taskQueue)).handle;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    const worker = await createMediaflowWorker({
      connection: h.connection,
      namespace,
      client: h.service,
      taskQueue,
      workflowBundle: suiteWorkflowBundle(),
    });
    const progress = await worker.runUntil(handle.result());
    expect(progress.outcome).toBe('completed');
    expect(progress.steps[0]!.succeeded).toBe(12);

    const described = await handle.describe();
    expect(
      described.typedSearchAttributes.getAll().filter((pair) => pair.key.name.startsWith('Mediaflow')),
    ).toEqual([]);
    expect(await described.staticDetails()).toContain('no mediaflow search attributes registered');
    const history = await handle.fetchHistory();
    const input = defaultPayloadConverter.fromPayload<CampaignInput>(
      history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    expect(input.searchAttributes).toBe(false);

    // What the embedded stack does for a state folder an older mediaflow made: register them.
    await registerSearchAttributes(client);
    await vi.waitFor(async () => expect(await searchAttributesRegistered(client)).toBe(true), {
      timeout: 20_000,
      interval: 500,
    });
  });

  it('the attributes docker-compose.yml and the local cluster register are the code’s', async () => {
    // One list serves both (deploy/temporal/setup-namespace.sh reads it; test/infra/cluster-config.int.test.ts
    // checks that compose mounts it).
    const file = new URL('../../deploy/temporal/search-attributes.txt', import.meta.url);
    const listed = (await readFile(file, 'utf8'))
      .split(/\s+/)
      .filter((line) => line && !line.startsWith('#'));
    expect(listed).toEqual(SEARCH_ATTRIBUTE_KEYS.map((key) => `${key.name}=${cliTypeOf(key.type)}`));
  });
});
