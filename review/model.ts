/**
 * The read model of the review and report pages: what a person sees of each job of a campaign,
 * computed from the stored plan, the manifest, the recorded decisions and the memo's progress.
 * Pure: the loader (review/sources.ts) reads those; this only decides what they mean, so every
 * state is tested as a table (test/review/model.test.ts).
 */
import type { ModelLabel } from '../api/catalogue/index.ts';
import { type Micros, tryParseUsd } from '../api/money.ts';
import type { CampaignProgress } from '../contract/progress.ts';
import type { DecisionRecord } from '../contract/review.ts';
import type { DerivativeRecord } from '../records/derivatives.ts';
import type { ManifestEntry } from '../records/manifest.ts';
import { paidByJob, paidInAllRuns } from '../records/paid.ts';
import { type ChannelView, channelsOf } from './channels.ts';
import { type ItemState, stateOf } from './job-state.ts';
import { type MediaKind, mediaKind } from './media-kind.ts';
import { type RefusalRate, refusalRates } from './refusal-rates.ts';

export type { ItemState } from './job-state.ts';

import { extraTakes } from '../plan/refusal.ts';
import type { Plan, PlannedJob } from '../plan/types.ts';
import { type RefusalRecord, refusalCharges } from '../records/refusals.ts';

export interface Output {
  readonly key: string;
  readonly name: string;
  readonly step: string;
  readonly state: ItemState;
  /** Relative to the output folder, as the manifest has it; null until saved. */
  readonly file: string | null;
  /** What a person calls it: its file, or until saved the file it will be, without its extension. */
  readonly fileName: string;
  readonly kind: MediaKind | null;
  /** For a video, the still it was made from (its parent's saved picture): the player's poster. */
  readonly poster: string | null;
}

export interface Item extends Output {
  /** Matrix values (and variant) by axis name, as strings. */
  readonly axes: Readonly<Record<string, string>>;
  readonly prompt: string | null;
  /** Price of one take (micro-dollars), null when only the service knows it. */
  readonly usd: Micros | null;
  /** What its saved take cost, and what every take of it cost together (retakes included); 0: none saved. */
  readonly takeUsd: Micros;
  readonly paidUsd: Micros;
  /**
   * The take saved: the regeneration counter, 0 for the first output, 1 for the first retake (its
   * file `<name>.take1.<ext>`). The one number the pages, the decisions and the manifest show.
   */
  readonly take: number;
  readonly decision: DecisionRecord | null;
  /** Why it failed, when the campaign said. */
  readonly failure: string | null;
  /** Every job made from this one, depth first (the videos of an approved still). */
  readonly descendants: readonly Output[];
  /** Changes whenever anything shown of the item does: the page redraws only changed cells. */
  readonly version: string;
}

export interface StepView {
  readonly id: string;
  readonly model: ModelLabel;
  readonly reviewed: boolean;
  /** A reviewer may give a new prompt with a regeneration (`review.edit_prompt`). */
  readonly editPrompt: boolean;
  /** The axes its jobs vary on, in the spec's order; `variant` last when the step repeats. */
  readonly axes: readonly string[];
  readonly items: readonly Item[];
  /** Planned price of its jobs, and what it cost: every take recorded, or what this run paid for it if more. */
  readonly plannedUsd: Micros;
  readonly spentUsd: Micros;
  readonly counts: Readonly<Record<ItemState, number>>;
  /** Refusal rate per matrix value (refusal-rates.ts); empty when nothing was refused. */
  readonly refusalRates: readonly RefusalRate[];
}

export interface Totals {
  /**
   * What the campaign has paid in all its runs (records/manifest.ts, paidInAllRuns: what `status`
   * says "in all runs"): the steps' spend, what was paid for jobs no longer in the plan
   * (`superseded`) and, when this run paid more than its records hold, the difference.
   */
  readonly spent: Micros;
  /** Paid for recorded jobs the current plan no longer has (an edit renamed or removed them). */
  readonly superseded: Micros;
  /** Descendants of approved jobs not saved yet: money the approvals have already decided on. */
  readonly committedByApprovals: Micros;
  /** Everything still to pay if every pending job is generated and every review approved. */
  readonly worstCaseLeft: Micros;
  readonly budget: Micros | null;
}

export interface CampaignModel {
  readonly campaign: string;
  readonly outcome: CampaignProgress['outcome'] | 'unknown';
  readonly steps: readonly StepView[];
  /** The derive steps' files, a sheet per step (channels.ts). */
  readonly channels: readonly ChannelView[];
  readonly totals: Totals;
  readonly failures: readonly { job: string; step: string; message: string }[];
}

export interface ModelSources {
  readonly plan: Plan;
  /** Ids of the steps that carry `review:`. */
  readonly reviewedSteps: ReadonlySet<string>;
  /** The latest manifest entry per job key. */
  readonly entries: ReadonlyMap<string, ManifestEntry>;
  /** What every recorded take of each job cost, by job key (records/manifest.ts, paidByJob); absent: the latest take's. */
  readonly paid?: ReadonlyMap<string, Micros>;
  /** Refused takes per job key (records/refusals.ts, readRefusals); absent: none read. */
  readonly refusals?: ReadonlyMap<string, readonly RefusalRecord[]>;
  /** The latest decision per job key (records/decisions.ts, readDecisions). */
  readonly decisions: ReadonlyMap<string, DecisionRecord>;
  /** Derivative records by key (records/derivatives.ts, readDerivatives); absent: none read. */
  readonly derivatives?: ReadonlyMap<string, DerivativeRecord>;
  /** The memo's progress while it runs, its result once ended; null when Temporal has no such campaign. */
  readonly progress: CampaignProgress | null;
}

function promptOf(job: PlannedJob): string | null {
  const prompt = job.input.prompt;
  return typeof prompt === 'string' ? prompt : null;
}

function axesOf(job: PlannedJob, repeats: boolean): Record<string, string> {
  const axes = Object.fromEntries(Object.entries(job.vars).map(([axis, value]) => [axis, String(value)]));
  return repeats ? { ...axes, variant: String(job.variant) } : axes;
}

/** Micro-dollars charged for a saved output (the service's decimal string), 0 when unsaid. */
function chargedOf(entry: ManifestEntry | undefined): Micros {
  return tryParseUsd(entry?.credits_used) ?? 0;
}

const ZERO_COUNTS: Record<ItemState, number> = {
  generating: 0,
  awaiting: 0,
  approved: 0,
  rejected: 0,
  regenerating: 0,
  failed: 0,
  done: 0,
  skipped: 0,
  waiting: 0,
  unrun: 0,
  refused: 0,
};

export function buildModel({
  plan,
  reviewedSteps,
  entries,
  paid = paidByJob([...entries.values()]),
  decisions,
  progress,
  refusals = new Map(),
  derivatives = new Map(),
}: ModelSources): CampaignModel {
  const allowed = new Map(plan.steps.map((step) => [step.id, extraTakes(step.onRefusal)]));
  const latest = decisions;
  const campaign = progress === null ? 'unknown' : progress.outcome === 'running' ? 'running' : 'ended';
  const failedNames = new Map((progress?.recentFailures ?? []).map((f) => [f.job, f.message]));
  const states = new Map<string, ItemState>();
  const children = new Map<string, PlannedJob[]>();
  // Parents come before their children in a plan, so one pass sees every parent's state first.
  for (const job of plan.jobs) {
    states.set(
      job.key,
      stateOf({
        reviewed: reviewedSteps.has(job.step),
        entry: entries.get(job.key),
        decision: latest.get(job.key),
        parent: job.parent === null ? null : (states.get(job.parent) ?? null),
        failed: failedNames.has(job.name),
        // More refused takes than on_refusal allows: no take is left to come. Else, once the
        // campaign ended, or the campaign named it, an unsaved refused job ended refused.
        refused:
          (refusals.get(job.key)?.length ?? 0) > 0 &&
          ((refusals.get(job.key)?.length ?? 0) > (allowed.get(job.step) ?? 0) ||
            campaign === 'ended' ||
            failedNames.get(job.name)?.startsWith('refused') === true),
        campaign,
      }),
    );
    if (job.parent !== null) children.set(job.parent, [...(children.get(job.parent) ?? []), job]);
  }
  const outputOf = (job: PlannedJob): Output => {
    const file = entries.get(job.key)?.file ?? null;
    const kind = file === null ? null : mediaKind(file);
    const parentFile = job.parent === null ? null : (entries.get(job.parent)?.file ?? null);
    const poster =
      kind === 'video' && parentFile !== null && mediaKind(parentFile) === 'image' ? parentFile : null;
    const fileName = file ?? `${job.step}/${job.file ?? job.name}`;
    return {
      key: job.key,
      name: job.name,
      step: job.step,
      state: states.get(job.key)!,
      file,
      fileName,
      kind,
      poster,
    };
  };
  const descendantsOf = (key: string): PlannedJob[] =>
    (children.get(key) ?? []).flatMap((child) => [child, ...descendantsOf(child.key)]);

  const steps = plan.steps.map((step): StepView => {
    const jobs = plan.jobs.filter((job) => job.step === step.id);
    const repeats = jobs.some((job) => job.variant > 1);
    const items = jobs.map((job): Item => {
      const entry = entries.get(job.key);
      const descendants = descendantsOf(job.key).map(outputOf);
      const item = {
        ...outputOf(job),
        axes: axesOf(job, repeats),
        prompt: typeof entry?.input.prompt === 'string' ? entry.input.prompt : promptOf(job),
        usd: job.usd,
        takeUsd: chargedOf(entry),
        paidUsd: paid.get(job.key) ?? chargedOf(entry),
        take: entry?.regenerations ?? 0,
        decision: latest.get(job.key) ?? null,
        failure: failedNames.get(job.name) ?? null,
        descendants,
      };
      const version = [item.state, item.file, item.take, ...descendants.map((d) => `${d.state}:${d.file}`)];
      return { ...item, version: version.join('|') };
    });
    const counts = { ...ZERO_COUNTS };
    for (const item of items) counts[item.state] += 1;
    return {
      id: step.id,
      model: step.model,
      reviewed: reviewedSteps.has(step.id),
      editPrompt: step.review?.editPrompt === true,
      axes: [...new Set(items.flatMap((item) => Object.keys(item.axes)))],
      items,
      plannedUsd: jobs.reduce((sum, job) => sum + (job.usd ?? 0), 0),
      // Every take recorded in every run and every flagged output charged (in no manifest line), or
      // what this run paid for the step if more (a charged failure).
      spentUsd: Math.max(
        jobs.reduce((sum, job) => sum + (paid.get(job.key) ?? chargedOf(entries.get(job.key))), 0) +
          refusalCharges(jobs.map((job) => refusals.get(job.key) ?? [])),
        progress?.steps.find((s) => s.id === step.id)?.spent ?? 0,
      ),
      counts,
      refusalRates: refusalRates(jobs, refusals),
    };
  });
  return {
    campaign: plan.campaign,
    outcome: progress?.outcome ?? 'unknown',
    steps,
    channels: channelsOf(plan, new Map(steps.map((step) => [step.id, step])), derivatives, latest),
    totals: totalsOf(plan, states, progress, paid, refusals),
    failures: progress?.recentFailures ?? [],
  };
}

/** Prices still to pay: pending jobs of every step, and the descendants an approval has released. */
function totalsOf(
  plan: Plan,
  states: ReadonlyMap<string, ItemState>,
  progress: CampaignProgress | null,
  paid: ReadonlyMap<string, Micros>,
  refusals: ReadonlyMap<string, readonly RefusalRecord[]>,
): Totals {
  const byKey = new Map(plan.jobs.map((job) => [job.key, job]));
  const approvedAncestor = (job: PlannedJob): boolean => {
    const parent = job.parent === null ? undefined : byKey.get(job.parent);
    if (!parent) return false;
    return states.get(parent.key) === 'approved' || approvedAncestor(parent);
  };
  let committedByApprovals = 0;
  let worstCaseLeft = 0;
  for (const job of plan.jobs) {
    const state = states.get(job.key)!;
    if (!['generating', 'regenerating', 'waiting', 'unrun'].includes(state)) continue;
    const price = job.usd ?? 0;
    worstCaseLeft += price;
    if (approvedAncestor(job)) committedByApprovals += price;
  }
  let superseded = 0;
  for (const [key, usd] of paid) if (!byKey.has(key)) superseded += usd;
  for (const [key, records] of refusals) if (!byKey.has(key)) superseded += refusalCharges([records]);
  return {
    spent: paidInAllRuns(paid, progress?.spent ?? 0, refusalCharges(refusals.values())),
    superseded,
    committedByApprovals,
    worstCaseLeft,
    budget: progress?.budget ?? plan.budget,
  };
}
