/**
 * The client side of a campaign's identity and start: its workflow id (derived from the campaign
 * name, so Temporal itself refuses a second concurrent run of one campaign, decision 2), starting
 * it or attaching to the run already under way, and continuing an older engine's run.
 */
import { createHash } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import type { CampaignInput, PlanRef } from '../contract/campaign.ts';
import { ENGINE, engineOf, engineQueue } from '../contract/engine.ts';
import { TASK_QUEUE } from '../contract/task-queues.ts';
import type { Plan } from '../plan/types.ts';
import type { campaignWorkflow } from '../workflows/runtime/campaign.ts';
import {
  FAULTS_KEY,
  SEARCH_ATTRIBUTE_KEYS,
  startAttributes,
} from '../workflows/runtime/search-attributes.ts';
import { campaignDetails, campaignSummary } from '../workflows/runtime/summaries.ts';
import { campaignInputOf, nothingRunYet } from './campaign-input.ts';
import { capsRunning } from './caps.ts';
import { joinGovernor, type KeyNames } from './governor.ts';
import { continuedReason } from './handover.ts';
import { registeredKeys } from './registered-attributes.ts';

export function workflowIdOf(campaign: string): string {
  return `mediaflow-${campaign}`;
}

export interface Started {
  readonly handle: WorkflowHandle<typeof campaignWorkflow>;
  /** True when the campaign was already running and we joined it. */
  readonly attached: boolean;
  /**
   * The engine generation of a run that was under way and is now continued from the records by a
   * new run of this generation (contract/engine.ts); absent when nothing was continued.
   */
  readonly continuedFrom?: number;
}

/** The campaign runs on a newer engine than this one: its workers' code is not ours to run. */
export class NewerEngineError extends Error {
  readonly campaign: string;
  readonly engine: number;

  constructor(campaign: string, engine: number) {
    super(
      `campaign "${campaign}" was started by a newer mediaflow (engine ${engine}; this one is engine ${ENGINE}): upgrade mediaflow to go on with it`,
    );
    this.campaign = campaign;
    this.engine = engine;
  }
}

/** A run of the campaign with another plan is under way; the caller says how to stop it. */
export class PlanMismatchError extends Error {
  readonly campaign: string;

  constructor(campaign: string) {
    super(`campaign "${campaign}" is already running a different version of the spec`);
    this.campaign = campaign;
  }
}

/**
 * What makes two plans the same campaign run: its jobs (their keys cover models, inputs and
 * parents), budget, concurrency and output folder. Service prices are left out, so it can be
 * computed before any call to the service.
 */
export function planIdentity(plan: Plan): string {
  const { budget, concurrency, outputDir } = plan;
  const text = JSON.stringify({ budget, concurrency, outputDir, jobs: plan.jobs.map((job) => job.key) });
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * Starts the campaign, or attaches to its running one. Given `key` (the API key's names,
 * control/governor.ts), a campaign it starts shares the key's limits with every other campaign on
 * the key through their rate governor, and its spend caps through the key's caps ledger.
 */
export async function startOrAttach(
  client: Client,
  plan: Plan,
  ref: PlanRef,
  taskQueue = engineQueue(TASK_QUEUE),
  key?: string | KeyNames,
  budget = plan.budget,
): Promise<Started> {
  const registered = await registeredKeys(client);
  const searchable = SEARCH_ATTRIBUTE_KEYS.every((key) => key === FAULTS_KEY || registered.has(key.name));
  // A fingerprint alone names both (tests, benchmarks); `run` names the key's caps ledger apart.
  const governor = typeof key === 'string' ? key : key?.governor;
  const capsKey = typeof key === 'string' ? { ledger: key } : key?.caps;
  // Spend caps hold every campaign on the key once any were set (docs/caps.md).
  const capped = capsKey !== undefined && (await capsRunning(client, capsKey));
  const input: CampaignInput = {
    ...campaignInputOf(plan, ref, budget),
    searchAttributes: searchable,
    ...(searchable && registered.has(FAULTS_KEY.name) && { searchFaults: true as const }),
    ...(governor !== undefined && { governor: { key: governor } }),
    ...(capped && {
      caps: { key: capsKey.ledger, ...(plan.priority !== undefined && { priority: plan.priority }) },
    }),
  };
  const progress = nothingRunYet(input);
  try {
    const handle = await client.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: workflowIdOf(input.campaign),
      taskQueue,
      args: [input],
      workflowTaskTimeout: taskTimeoutOf(ref.jobCount),
      // Progress is there from the start: until the workflow publishes its own, nothing ran yet.
      memo: { planIdentity: planIdentity(plan), progress, engine: ENGINE },
      ...(searchable && {
        typedSearchAttributes: startAttributes(
          input.campaign,
          ref.digest,
          ref.jobCount,
          input.budget,
          progress,
        ),
      }),
      // What the Temporal UI and CLI say the campaign is (its name, jobs per step, budget, spec).
      staticSummary: campaignSummary(input),
      staticDetails: campaignDetails(input, searchable),
    });
    if (governor !== undefined) {
      await joinGovernor(client, governor, {
        campaign: handle.workflowId,
        weight: plan.weight ?? 1,
        wants: plan.concurrency,
        ...(plan.priority !== undefined && { priority: plan.priority }),
      });
    }
    return { handle, attached: false };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const handle = await attach(client, plan);
    const { runId, memo } = await handle.describe();
    const engine = engineOf(memo);
    if (engine === ENGINE) return { handle, attached: true };
    // An older run: end it (its in-flight predictions stay upstream, claimed in the records) and
    // start this generation's, which adopts them, keeps every decision and pays nothing twice.
    // The run id makes sure only that run ends, not one another client started meanwhile.
    await client.workflow.getHandle(handle.workflowId, runId).terminate(continuedReason(engine));
    const started = await startOrAttach(client, plan, ref, taskQueue, key);
    return { ...started, continuedFrom: engine };
  }
}

/**
 * How long one workflow task of a campaign may take. A worker that takes a run over replays its
 * whole history in one task, and on a loaded machine the replay of a run near its roll-over
 * (decide.ts) can pass Temporal's default 10 s: the replacement worker then loses task after task
 * and the campaign makes no progress (a replay that never fits would never end). A larger campaign
 * therefore gets 20 s, with room above the worst replay seen (docs/benchmarks.md, "field"). The
 * price is paid when a worker dies in the middle of a task (not between tasks): the server, having
 * no other sign, hands the task on only when this passes (docs/benchmarks.md, "cluster"), so a
 * campaign whose whole history stays small (a few events per job) keeps the default.
 * Continue-as-new keeps it (the server copies the run's timeout when the command names none;
 * test/engine/durability.int.test.ts checks every run).
 */
export function taskTimeoutOf(jobCount: number): '10s' | '20s' {
  return jobCount <= 1_000 ? '10s' : '20s';
}

/** The running campaign of this plan; refuses when it runs another version of the spec. */
export async function attach(client: Client, plan: Plan): Promise<WorkflowHandle<typeof campaignWorkflow>> {
  const handle = campaignHandle(client, plan.campaign);
  const { memo } = await handle.describe();
  if (engineOf(memo) > ENGINE) throw new NewerEngineError(plan.campaign, engineOf(memo));
  if (memo?.planIdentity !== planIdentity(plan)) {
    throw new PlanMismatchError(plan.campaign);
  }
  return handle;
}

export function campaignHandle(client: Client, campaign: string): WorkflowHandle<typeof campaignWorkflow> {
  return client.workflow.getHandle<typeof campaignWorkflow>(workflowIdOf(campaign));
}
