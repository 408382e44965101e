/**
 * The client side of a campaign: start it (or attach to the run already under way), read its
 * progress, wait for it, cancel it. The workflow id is derived from the campaign name, so
 * Temporal itself refuses a second concurrent run of one campaign (decision 2).
 */
import { createHash } from 'node:crypto';
import {
  type Client,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  encodeSearchAttributeIndexedValueType,
  type SearchAttributeKey,
  type SearchAttributeType,
} from '@temporalio/common/lib/search-attributes.js';
import type { CampaignInput, PlanRef } from '../contract/campaign.ts';
import { progressQuery } from '../contract/campaign-messages.ts';
import { ENGINE, engineOf, engineQueue } from '../contract/engine.ts';
import { noCounts } from '../contract/no-counts.ts';
import { CampaignProgress } from '../contract/progress.ts';
import { TASK_QUEUE } from '../contract/task-queues.ts';
import type { Plan } from '../plan/types.ts';
import type { campaignWorkflow } from '../workflows/campaign.ts';
import { FAULTS_KEY, SEARCH_ATTRIBUTE_KEYS, startAttributes } from '../workflows/search-attributes.ts';
import { campaignDetails, campaignSummary } from '../workflows/summaries.ts';
import { capsRunning } from './caps.ts';
import { decoderOf, finishOutagePause } from './finish-outage.ts';
import { joinGovernor } from './governor.ts';
import { workerServing } from './worker-presence.ts';

/**
 * The workflow's input: the plan by reference plus the few facts the scheduler needs. `budget`:
 * what this run may spend (cli/run-budget.ts), by default the plan's.
 */
export function campaignInputOf(plan: Plan, ref: PlanRef, budget = plan.budget): CampaignInput {
  return {
    campaign: plan.campaign,
    plan: ref,
    steps: plan.steps.map(
      ({ id, model, from, retries, concurrency, jobCount, review, onRefusal, timeoutMs }) => ({
        id,
        model,
        retries,
        concurrency,
        jobCount,
        ...(from === null ? {} : { from: plan.steps.findIndex((step) => step.id === from) }),
        ...(review ? { review } : {}),
        ...(onRefusal ? { onRefusal } : {}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      }),
    ),
    outputDir: plan.outputDir,
    budget,
    concurrency: plan.concurrency,
    ...(plan.notify && { notify: plan.notify }),
  };
}

/** The progress of a campaign that has not started any job (`run` draws it while its worker starts). */
export function nothingRunYet(input: CampaignInput): CampaignProgress {
  return {
    campaign: input.campaign,
    outcome: 'running',
    steps: input.steps.map(({ id, model, jobCount, review }) => ({
      id,
      model,
      planned: jobCount,
      waiting: jobCount,
      running: 0,
      ...noCounts(),
      ...(review ? { awaiting_review: 0, approved: 0, rejected: 0 } : {}),
    })),
    spent: 0,
    committed: 0,
    budget: input.budget,
    recentFailures: [],
    startedAt: Date.now(),
    etaMs: null,
    runs: 1,
  };
}

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

/** Why an older run ends, as the Temporal UI and `temporal workflow describe` show it. */
export function continuedReason(engine: number): string {
  return `continued from its records by mediaflow engine ${ENGINE} (this run was engine ${engine}); nothing made is paid again`;
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
 * Starts the campaign, or attaches to its running one. Given `governor` (the API key's
 * fingerprint, control/governor.ts), a campaign it starts shares the key's limits with every other
 * campaign on the key through their rate governor.
 */
export async function startOrAttach(
  client: Client,
  plan: Plan,
  ref: PlanRef,
  taskQueue = engineQueue(TASK_QUEUE),
  governor?: string,
  budget = plan.budget,
): Promise<Started> {
  const registered = await registeredKeys(client);
  const searchable = SEARCH_ATTRIBUTE_KEYS.every((key) => key === FAULTS_KEY || registered.has(key.name));
  // Spend caps hold every campaign on the key once any were set (docs/caps.md).
  const capped = governor !== undefined && (await capsRunning(client, governor));
  const input: CampaignInput = {
    ...campaignInputOf(plan, ref, budget),
    searchAttributes: searchable,
    ...(searchable && registered.has(FAULTS_KEY.name) && { searchFaults: true as const }),
    ...(governor !== undefined && { governor: { key: governor } }),
    ...(capped && {
      caps: { key: governor, ...(plan.priority !== undefined && { priority: plan.priority }) },
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
    const started = await startOrAttach(client, plan, ref, taskQueue, governor);
    return { ...started, continuedFrom: engine };
  }
}

/**
 * How long one workflow task of a campaign may take. A worker that takes a run over replays its
 * whole history in one task: ~1.4 ms of CPU per event on a quiet machine, so 7 s for a run rolled
 * over at 5,000 events (decide.ts), and 12.5 s on the loaded machine of the full `field` drill,
 * whose replacement worker then lost four tasks in a row to Temporal's default 10 s, 41 s without
 * progress (and a replay that never fits would never end). A larger campaign gets 20 s, 1.6 × that
 * worst replay. The price is paid when a worker dies in the middle of a task (not between tasks):
 * the server, having no other sign, hands the task on only when this passes (the cluster drill
 * lost 30 s to one such SIGKILL when this was 30 s), so a campaign whose whole history stays
 * small (at most ~3 events per job: ~4 s of replay at 1,000 jobs) keeps the default. Continue-as-new
 * keeps it (the server copies the run's timeout when the command names none;
 * test/engine/durability.int.test.ts checks every run).
 */
export function taskTimeoutOf(jobCount: number): '10s' | '20s' {
  return jobCount <= 1_000 ? '10s' : '20s';
}

/**
 * Whether the namespace has every mediaflow search attribute with its type (the embedded dev
 * server and docker-compose.yml register them; other servers by hand, docs/deployment.md).
 * Without them a campaign runs all the same, unsearchable: starting or upserting an unregistered
 * attribute would fail. A server that will not say (permissions) counts as without.
 */
export async function searchAttributesRegistered(client: Client): Promise<boolean> {
  return (await registeredKeys(client)).size === SEARCH_ATTRIBUTE_KEYS.length;
}

/**
 * The mediaflow search attributes the namespace has, each with its type. A namespace set up before
 * MediaflowFaults existed has every other one: its campaigns stay searchable and leave that one out.
 */
async function registeredKeys(client: Client): Promise<Set<string>> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
      namespace: client.options.namespace,
    });
    const has = (key: SearchAttributeKey<SearchAttributeType>) =>
      customAttributes?.[key.name] === encodeSearchAttributeIndexedValueType(key.type);
    return new Set(SEARCH_ATTRIBUTE_KEYS.filter(has).map((key) => key.name));
  } catch {
    return new Set();
  }
}

/**
 * Registers mediaflow's search attributes that the namespace lacks. For the embedded dev server
 * only: it registers them when it creates its database, so a state folder made by an older
 * mediaflow would otherwise keep campaigns unsearchable (other servers are the operator's).
 */
export async function registerSearchAttributes(client: Client): Promise<void> {
  const { namespace } = client.options;
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => customAttributes?.[key.name] === undefined);
  if (missing.length === 0) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.flatMap((key) => {
        const type = encodeSearchAttributeIndexedValueType(key.type);
        return type === undefined ? [] : [[key.name, type]];
      }),
    ),
  });
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

export interface CampaignView {
  readonly progress: CampaignProgress;
  /**
   * When its last run closed (epoch ms), null while it runs. With `progress.startedAt` (the first
   * run's start, carried across continue-as-new) it gives how long the campaign took, which no
   * later reading of the clock would.
   */
  readonly closedAt: number | null;
  /** Running with no worker polling its task queue: nothing moves until one starts. */
  readonly paused: boolean;
}

export class NoWorkerError extends Error {
  constructor(workflowId: string, taskQueue: string, reason: string) {
    const campaign = workflowId.replace(/^mediaflow-/, ''); // workflowIdOf's prefix
    super(
      `${campaign} is running, but no worker on task queue ${taskQueue} answered for its progress (${reason})`,
    );
  }
}

/** The server's own words (e.g. "no poller seen for task queue recently") behind a client error. */
function grpcDetails(error: ServiceError): string | undefined {
  const { cause } = error;
  return cause && 'details' in cause && typeof cause.details === 'string' ? cause.details : undefined;
}

/**
 * Progress of a running campaign, or the final progress of a finished one (its result). Neither
 * needs a worker. Throws WorkflowNotFoundError when unknown.
 */
export async function campaignProgress(client: Client, campaign: string): Promise<CampaignView> {
  return campaignView(client, campaignHandle(client, campaign));
}

/**
 * A running campaign publishes its progress in its memo (workflows/campaign.ts), which the server
 * answers from its own records: no query, so no worker is asked to apply history for a client
 * (docs/engine.md, "Progress without queries"). Campaigns started before that have only the
 * query, asked of a worker when one polls.
 */
export async function campaignView(
  client: Client,
  handle: WorkflowHandle<typeof campaignWorkflow>,
): Promise<CampaignView> {
  // Without a run id, describe() answers for the latest run: the one whose close ends the campaign.
  const { status, closeTime, taskQueue, memo, raw } = await handle.describe();
  if (status.name !== 'RUNNING') {
    return { progress: await handle.result(), closedAt: closeTime?.getTime() ?? null, paused: false };
  }
  const paused = !(await workerServing(client, taskQueue, raw.pendingWorkflowTask));
  const published = CampaignProgress.safeParse(memo?.progress);
  if (published.success) {
    // Finishes waiting out an outage pause nothing the workflow knows of: named here (finish-outage.ts).
    const waiting = published.data.paused
      ? undefined
      : finishOutagePause(raw.pendingActivities ?? [], decoderOf(client), Date.now());
    const progress =
      waiting && published.data.outcome === 'running'
        ? { ...published.data, paused: waiting }
        : published.data;
    return { progress, closedAt: null, paused };
  }
  // The server holds a query for a poller for half a minute; with none seen, say so at once.
  if (paused) throw new NoWorkerError(handle.workflowId, taskQueue, 'no worker polling it');
  const progress = await handle.query(progressQuery).catch((error: unknown) => {
    if (!(error instanceof ServiceError)) throw error;
    throw new NoWorkerError(handle.workflowId, taskQueue, grpcDetails(error) ?? error.message);
  });
  return { progress, closedAt: null, paused };
}

/** Waits for the campaign to end (a worker has to carry it there) and returns its final view. */
export async function finalView(handle: WorkflowHandle<typeof campaignWorkflow>): Promise<CampaignView> {
  const progress = await handle.result();
  const { closeTime } = await handle.describe();
  return { progress, closedAt: closeTime?.getTime() ?? null, paused: false };
}
