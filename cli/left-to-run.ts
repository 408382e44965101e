/**
 * What a campaign's records say of a plan before anything is paid: which jobs are recorded with
 * their files (free on a re-run), which are left to run and why (edited since they were recorded,
 * new, or recorded but their file is gone), and which review approvals an edit makes void (an
 * approved output whose job now has another key is replaced, and its replacement is reviewed
 * afresh). Read by `run`'s preflight, `estimate` and `plan`, so the three say the same thing.
 *
 * Jobs are matched to records by key (plan/keys.ts: a content hash, so an edited job has a new
 * key); an edited job is told from a new one by its step and name, which an edit of its input
 * keeps (one colour renamed changes the names, and then the job is new, not edited).
 */
import pLimit from 'p-limit';
import type { PlannedJob } from '../plan/types.ts';
import { readDecisions } from '../records/decisions.ts';
import { nodeWriter } from '../records/jsonl.ts';
import { Manifest, type ManifestEntry } from '../records/manifest.ts';
import { recordedOutput } from '../records/outputs.ts';
import type { Store } from '../store/index.ts';

export type WhyToRun = 'edited' | 'new' | 'lost';

export interface JobToRun {
  readonly job: PlannedJob;
  readonly why: WhyToRun;
}

/** An approval recorded for an output this plan replaces (its job was edited) or no longer has. */
export interface VoidedApproval {
  readonly step: string;
  readonly name: string;
  /** The key the approval was recorded under (the job before the edit). */
  readonly key: string;
  /** True when an edited job of the same step and name replaces it; false when the plan dropped it. */
  readonly replaced: boolean;
  readonly by: string | null;
  readonly at: string;
}

export interface LeftToRun {
  /** Jobs of the plan recorded with their file: a re-run takes them as done, at no cost. */
  readonly recorded: number;
  /** The rest, in plan order (parents before children). */
  readonly toRun: readonly JobToRun[];
  readonly voidedApprovals: readonly VoidedApproval[];
}

/** How many of `toRun` are there for each reason. */
export function countWhy(toRun: readonly JobToRun[]): Record<WhyToRun, number> {
  const counts: Record<WhyToRun, number> = { edited: 0, new: 0, lost: 0 };
  for (const { why } of toRun) counts[why]++;
  return counts;
}

export async function leftToRun(
  plan: { readonly campaign: string; readonly outputDir: string; readonly jobs: readonly PlannedJob[] },
  store: Store,
): Promise<LeftToRun> {
  const manifest = await Manifest.open(plan.outputDir, nodeWriter, store);
  // A recorded job counts only while its file is there: a lost one is priced as a new generation.
  // Several at a time: in S3 mode each lookup is a request or two.
  const limit = pLimit(32);
  const states = await Promise.all(
    plan.jobs.map((job) => limit(async () => (await recordedOutput(manifest, job.key)).state)),
  );
  const pending = plan.jobs.filter((_, i) => states[i] !== 'done');
  if (pending.length === 0) return { recorded: plan.jobs.length, toRun: [], voidedApprovals: [] };

  // Only when something is left (a plan run to its end voids nothing): the recorded outputs this
  // plan no longer has, by step and name, and the approvals recorded for them.
  const inPlan = new Set(plan.jobs.map((job) => job.key));
  const gone = new Map<string, ManifestEntry>();
  for (const entry of await manifest.recorded()) {
    if (!inPlan.has(entry.key)) gone.set(slot(entry.step, entry.name), entry);
  }
  const decisions = gone.size === 0 ? new Map() : await readDecisions(plan.outputDir, plan.campaign, store);
  const toRun: JobToRun[] = [];
  const replacing = new Set<string>();
  for (const [i, job] of plan.jobs.entries()) {
    if (states[i] === 'done') continue;
    const edited = gone.has(slot(job.step, job.name));
    if (edited) replacing.add(slot(job.step, job.name));
    toRun.push({ job, why: states[i] === 'lost' ? 'lost' : edited ? 'edited' : 'new' });
  }
  const voidedApprovals: VoidedApproval[] = [];
  for (const [at, entry] of gone) {
    const decision = decisions.get(entry.key);
    if (decision?.action !== 'approve') continue;
    voidedApprovals.push({
      step: entry.step,
      name: entry.name,
      key: entry.key,
      replaced: replacing.has(at),
      by: decision.by ?? null,
      at: decision.at,
    });
  }
  return { recorded: plan.jobs.length - pending.length, toRun, voidedApprovals };
}

function slot(step: string, name: string): string {
  return `${step}\u0000${name}`;
}
