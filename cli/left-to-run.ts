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
 *
 * A job below a recorded take that a reviewer rejected is skipped, not left to run: the run takes
 * the recorded take with its decision (activities/create, `cachedOutcome`) and skips what it
 * rejected, at no cost. Only while that take stands: an edited parent is made and reviewed afresh.
 */
import pLimit from 'p-limit';
import type { PlannedJob, PlannedStep } from '../plan/types.ts';
import { readDecisions } from '../records/decisions.ts';
import { nodeWriter } from '../records/jsonl.ts';
import { Manifest, type ManifestEntry } from '../records/manifest.ts';
import { type RecordedOutput, recordedOutput } from '../records/outputs.ts';
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

/** A job the run will skip: an ancestor's recorded take was rejected, and that decision stands. */
export interface SkippedJob {
  readonly job: PlannedJob;
  /** The rejected ancestor's step ("its still was rejected"). */
  readonly rejectedStep: string;
}

export interface LeftToRun {
  /** Jobs of the plan recorded with their file: a re-run takes them as done, at no cost. */
  readonly recorded: number;
  /** The rest that will run, in plan order (parents before children). */
  readonly toRun: readonly JobToRun[];
  /** Jobs not recorded that will not run either: below a rejected take. Not priced. */
  readonly skipped: readonly SkippedJob[];
  /**
   * Recorded jobs of reviewed steps whose saved take has no approval yet (undecided, or a retake
   * asked): their children left to run wait for a reviewer (plan/review-costs.ts, `awaiting`).
   */
  readonly awaitingDecision: ReadonlySet<string>;
  readonly voidedApprovals: readonly VoidedApproval[];
}

/** How many of `toRun` are there for each reason. */
export function countWhy(toRun: readonly JobToRun[]): Record<WhyToRun, number> {
  const counts: Record<WhyToRun, number> = { edited: 0, new: 0, lost: 0 };
  for (const { why } of toRun) counts[why]++;
  return counts;
}

export async function leftToRun(
  plan: {
    readonly campaign: string;
    readonly outputDir: string;
    readonly steps: readonly Pick<PlannedStep, 'id' | 'review'>[];
    readonly jobs: readonly PlannedJob[];
  },
  store: Store,
): Promise<LeftToRun> {
  const manifest = await Manifest.open(plan.outputDir, nodeWriter, store);
  // A recorded job counts only while its file is there: a lost one is priced as a new generation.
  // Several at a time: in S3 mode each lookup is a request or two.
  const limit = pLimit(32);
  const entryOf = await manifest.walk();
  const outputs = await Promise.all(
    plan.jobs.map((job) => limit(() => recordedOutput(manifest, job.key, entryOf))),
  );
  const states = outputs.map((output) => output.state);
  const pending = plan.jobs.filter((_, i) => states[i] !== 'done');
  if (pending.length === 0) {
    return {
      recorded: plan.jobs.length,
      toRun: [],
      skipped: [],
      awaitingDecision: new Set(),
      voidedApprovals: [],
    };
  }
  const { rejected, awaitingDecision } = await decidedTakes(plan, outputs, store);

  // Only when something is left (a plan run to its end voids nothing): the recorded outputs this
  // plan no longer has, by step and name, and the approvals recorded for them.
  const inPlan = new Set(plan.jobs.map((job) => job.key));
  const gone = new Map<string, ManifestEntry>();
  for (const entry of await manifest.recorded()) {
    if (!inPlan.has(entry.key)) gone.set(slot(entry.step, entry.name), entry);
  }
  const decisions = gone.size === 0 ? new Map() : await readDecisions(plan.outputDir, plan.campaign, store);
  const toRun: JobToRun[] = [];
  const skipped: SkippedJob[] = [];
  const replacing = new Set<string>();
  for (const [i, job] of plan.jobs.entries()) {
    if (states[i] === 'done') continue;
    // Parents come first in a plan, so a skipped parent is known when its children are met.
    const below = job.parent === null ? undefined : rejected.get(job.parent);
    if (below !== undefined) {
      rejected.set(job.key, below);
      skipped.push({ job, rejectedStep: below });
      continue;
    }
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
  return { recorded: plan.jobs.length - pending.length, toRun, skipped, awaitingDecision, voidedApprovals };
}

/**
 * The recorded takes of reviewed steps by what was decided of them: rejected (by job key, with
 * the step) or not approved yet. The decision counted is the one recorded for the very take saved
 * (as the run reads it), so a decision on an earlier take does not count.
 */
async function decidedTakes(
  plan: Parameters<typeof leftToRun>[0],
  outputs: readonly RecordedOutput[],
  store: Store,
): Promise<{ rejected: Map<string, string>; awaitingDecision: Set<string> }> {
  const reviewed = new Set(plan.steps.filter((step) => step.review).map((step) => step.id));
  const rejected = new Map<string, string>();
  const awaitingDecision = new Set<string>();
  if (reviewed.size === 0) return { rejected, awaitingDecision };
  const decisions = await readDecisions(plan.outputDir, plan.campaign, store);
  for (const [i, job] of plan.jobs.entries()) {
    const output = outputs[i]!;
    if (output.state !== 'done' || !reviewed.has(job.step)) continue;
    const decision = decisions.get(job.key);
    const action = decision?.take === output.entry.regenerations ? decision.action : undefined;
    if (action === 'reject') rejected.set(job.key, job.step);
    else if (action !== 'approve') awaitingDecision.add(job.key);
  }
  return { rejected, awaitingDecision };
}

function slot(step: string, name: string): string {
  return `${step}\u0000${name}`;
}
