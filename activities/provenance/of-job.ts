/**
 * What an output's provenance says, gathered from the records as the output is saved: the plan
 * and job, the prompt sent, the parent's output (a video made from a still) and the review
 * decision that let it be made. Decisions are read only for reviewed steps, so a campaign without
 * review pays no extra store read per output.
 */
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import type { DecisionRecord } from '../../contract/review.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { readDecision } from '../../records/decisions.ts';
import type { Manifest } from '../../records/manifest.ts';
import type { PlanHead } from '../../records/plan-store.ts';
import type { Provenance, ReviewMark } from './xmp.ts';

/** What of a finish request provenance reads: a record repaired later has these too (repair-records.ts). */
export type ProvenanceRequest = Pick<
  FinishRequest,
  'campaign' | 'outputDir' | 'regen' | 'prompt' | 'startedAt'
> & {
  readonly plan: Pick<FinishRequest['plan'], 'digest'>;
};

export async function provenanceOf(
  head: Pick<PlanHead, 'steps'>,
  manifest: Manifest,
  job: PlannedJob,
  prediction: Prediction,
  request: ProvenanceRequest,
): Promise<Provenance> {
  const reviewed = (step: string) => Boolean(head.steps.find((s) => s.id === step)?.review);
  const parent = job.parent === null ? undefined : await manifest.get(job.parent);
  const decision = async (key: string, take: number, of: ReviewMark['of']) => {
    const record = await readDecision(request.outputDir, request.campaign, key, take, manifest.store);
    return record ? markOf(record, of) : null;
  };
  // A still's own decision is made after it is delivered, so it is known here only when the file
  // is saved again (a lost file made again); a video carries the approval of the still it is made from.
  const review =
    (reviewed(job.step) ? await decision(job.key, request.regen, 'self') : null) ??
    (parent && reviewed(parent.step) ? await decision(parent.key, parent.regenerations, 'parent') : null);
  const prompt = request.prompt ?? job.input.prompt;
  return {
    model: job.model,
    prompt: typeof prompt === 'string' ? prompt : null,
    campaign: request.campaign,
    planDigest: request.plan.digest,
    jobKey: job.key,
    predictionId: prediction.id,
    parentFile: parent?.file ?? null,
    review,
    createdAt: prediction.createdAt ?? new Date(request.startedAt).toISOString(),
  };
}

export function markOf(record: DecisionRecord, of: ReviewMark['of']): ReviewMark {
  const by = record.by ?? (record.source === 'timeout' ? 'review timeout' : null);
  return { action: record.action, by, at: record.at, ...(record.note ? { note: record.note } : {}), of };
}
