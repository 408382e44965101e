/**
 * The planner's entry point: spec file → validated, priced Plan, or every problem found.
 * Pure apart from reading the spec and the local pictures it names: no network, no clock.
 */
import path from 'node:path';
import { parseUsd } from '../api/money.ts';
import { expandJobs } from './expand.ts';
import { LocalFiles } from './local-files.ts';
import { notifyRuleOf } from './notify.ts';
import { prepareSteps } from './prepare.ts';
import { type SpecProblem, sortProblems } from './problems.ts';
import type { Report } from './report.ts';
import { reviewRuleOf } from './review.ts';
import { CampaignSpec, DEFAULT_CONCURRENCY, DEFAULT_RETRIES } from './schema.ts';
import { shapeProblems } from './shape-problems.ts';
import { loadSpecSource } from './source.ts';
import type { Plan, PlannedStep } from './types.ts';

export { jobKey } from './keys.ts';
export { formatProblem, type SpecProblem } from './problems.ts';
export { FROM_OUTPUT, LOCAL_FILE_PREFIX, type Plan, type PlannedJob, type PlannedStep } from './types.ts';

export type PlanResult = { ok: true; plan: Plan } | { ok: false; problems: SpecProblem[] };

export interface PlanOptions {
  /** Folders besides the spec's own that local image inputs may be read from (`--allow-input-root`). */
  readonly inputRoots?: readonly string[];
}

export async function planCampaign(specFile: string, options: PlanOptions = {}): Promise<PlanResult> {
  const file = path.resolve(specFile);
  const source = await loadSpecSource(file);
  if (source.problems.length > 0) return { ok: false, problems: sortProblems(source.problems) };
  const parsed = CampaignSpec.safeParse(source.data);
  if (!parsed.success)
    return { ok: false, problems: sortProblems(shapeProblems(source, parsed.error, CampaignSpec)) };

  const spec = parsed.data;
  const problems: SpecProblem[] = [];
  const report: Report = (at, message, where) => problems.push(source.problemAt(at, message, where));
  const steps = prepareSteps(spec, report);
  const specDir = path.dirname(file);
  const roots = steps.filter((step) => step.from === null);
  const jobs = expandJobs(
    roots,
    spec.vars ?? {},
    new LocalFiles(
      specDir,
      (options.inputRoots ?? []).map((root) => path.resolve(root)),
    ),
    report,
  );
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems) };

  const jobCounts = new Map<string, number>();
  let totalUsd = 0;
  let unpricedJobs = 0;
  for (const job of jobs) {
    jobCounts.set(job.step, (jobCounts.get(job.step) ?? 0) + 1);
    if (job.usd === null) unpricedJobs++;
    else totalUsd += job.usd;
  }
  const plannedSteps: PlannedStep[] = steps.map((step) => {
    // Only when gated: plans (and their digests) of specs without review gates stay as they were.
    const review = reviewRuleOf(spec.steps[step.index]!.review);
    return {
      id: step.id,
      model: step.model,
      from: step.from?.id ?? null,
      retries: step.retries ?? DEFAULT_RETRIES,
      concurrency: step.concurrency ?? null,
      jobCount: jobCounts.get(step.id) ?? 0,
      ...(review ? { review } : {}),
      // Only when set, likewise: the digest of a plan without them stays as it was.
      ...(step.onRefusal ? { onRefusal: step.onRefusal } : {}),
      ...(step.timeoutMs === null ? {} : { timeoutMs: step.timeoutMs }),
    };
  });
  const notify = notifyRuleOf(spec.notify);
  return {
    ok: true,
    plan: {
      campaign: spec.campaign,
      specFile: file,
      outputDir: outputLocation(specDir, spec.output?.dir ?? path.join('out', spec.campaign)),
      budget: spec.budget?.max_usd === undefined ? null : parseUsd(spec.budget.max_usd),
      ...(spec.budget?.per_run_usd !== undefined && { perRunBudget: parseUsd(spec.budget.per_run_usd) }),
      concurrency: spec.concurrency ?? DEFAULT_CONCURRENCY,
      steps: plannedSteps,
      jobs,
      totalUsd,
      unpricedJobs,
      ...(notify ? { notify } : {}),
      ...(spec.weight !== undefined && { weight: spec.weight }),
      ...(spec.priority !== undefined && { priority: spec.priority }),
    },
  };
}

/**
 * A folder relative to the spec (made absolute), or an object-storage URL (`s3://bucket/prefix`),
 * kept as written: the store (store/location.ts) reads it, which plan/ may not import.
 */
export function outputLocation(base: string, dir: string): string {
  return dir.startsWith('s3://') ? dir.replace(/\/+$/, '') : path.resolve(base, dir);
}
