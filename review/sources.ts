/**
 * Where the read model's facts come from: the campaign's stored plan and output folder (named by
 * its workflow's input), the manifest, the recorded decisions, the derivative records and the
 * memo's progress. Progress
 * is read from the memo, never by a query (docs/engine.md, "Progress without queries").
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import type { CampaignProgress } from '../contract/progress.ts';
import type { DecisionRecord } from '../contract/review.ts';
import type { Plan } from '../plan/types.ts';
import { readDerivatives } from '../records/derivatives.ts';
import { Manifest, type ManifestEntry } from '../records/manifest.ts';
import { paidByJob } from '../records/paid.ts';
import { readPlan } from '../records/plan-store.ts';
import { readRefusals } from '../records/refusals.ts';
import { readUnsaved } from '../records/unsaved.ts';
import { isS3Url } from '../store/index.ts';
import type { ModelSources } from './model.ts';

/** The part of the campaign workflow's input (contract/campaign.ts) the pages need. */
const CampaignStart = z.object({
  campaign: z.string(),
  outputDir: z.string(),
  plan: z.object({ file: z.string(), digest: z.string(), jobCount: z.number().int().nonnegative() }),
});
export type CampaignStart = z.infer<typeof CampaignStart>;

/**
 * What the latest run of a campaign was started with: the first event of its history (a run
 * continued as new starts with the same plan and folder). One page of one event, not the history.
 */
export async function campaignStart(client: Client, handle: WorkflowHandle): Promise<CampaignStart> {
  const { runId } = await handle.describe();
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: handle.workflowId, runId },
    maximumPageSize: 1,
  });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) throw new Error(`${handle.workflowId}: its history has no start event with an input`);
  const input: unknown = client.options.loadedDataConverter.payloadConverter.fromPayload(payload);
  return CampaignStart.parse(input);
}

export interface SourceDeps {
  readonly readDecisions: (
    outputDir: string,
    campaign: string,
  ) => Promise<ReadonlyMap<string, DecisionRecord>>;
  /** The memo's progress (or the result of an ended campaign); null when Temporal does not know it. */
  readonly progress: () => Promise<CampaignProgress | null>;
}

export function reviewedStepsOf(plan: Plan): Set<string> {
  return new Set(plan.steps.filter((step) => step.review).map((step) => step.id));
}

/** Reads the plan once (it never changes under a campaign) and the rest at every call. */
export async function openSources(
  start: Pick<CampaignStart, 'campaign' | 'outputDir' | 'plan'>,
  deps: SourceDeps,
): Promise<() => Promise<ModelSources>> {
  // The page shows every job: unlike a worker, it holds the whole plan (read page by page).
  const stored = await readPlan(start.plan);
  const plan: Plan = { ...stored.head, jobs: await stored.jobs(0, start.plan.jobCount) };
  return sourcesOf(plan, deps);
}

/** The same for a plan already in hand (a report made from a spec). */
export async function sourcesOf(plan: Plan, deps: SourceDeps): Promise<() => Promise<ModelSources>> {
  const manifest = await Manifest.open(plan.outputDir);
  const reviewedSteps = reviewedStepsOf(plan);
  // Unlike a worker's, the page's memory holds every entry: it shows every job.
  const entries = new Map<string, ManifestEntry>();
  /** Every take seen, by prediction: what each job's takes cost together (paidByJob). */
  const takes = new Map<string, ManifestEntry>();
  const add = (read: readonly ManifestEntry[]) => {
    for (const entry of read) {
      entries.set(entry.key, entry);
      takes.set(entry.prediction_id, entry);
    }
  };
  // A folder's manifest.jsonl is read whole once, then as it grows; S3 records are listed each time.
  const s3 = isS3Url(plan.outputDir);
  const derives = (plan.deriveSteps ?? []).length > 0;
  if (!s3) add(await manifest.takes());
  return async () => {
    add(s3 ? await manifest.takes() : await manifest.refresh());
    const [decisions, progress, refusals, unsaved, derived] = await Promise.all([
      deps.readDecisions(plan.outputDir, plan.campaign),
      deps.progress(),
      readRefusals(plan.outputDir, plan.campaign),
      readUnsaved(manifest.store, plan.campaign),
      // Read whole each time: a record is rewritten under its key when its parent is re-taken.
      derives ? readDerivatives(manifest.store) : [],
    ]);
    const paid = paidByJob([...takes.values()], unsaved);
    const derivatives = new Map(derived.map((record) => [record.key, record]));
    return {
      plan,
      reviewedSteps,
      entries: new Map(entries),
      paid,
      decisions,
      progress,
      refusals,
      derivatives,
    };
  };
}
