/**
 * The planner's entry point: spec file → validated, priced Plan, or every problem found.
 * Pure apart from reading the spec and the local pictures it names: no network, no clock.
 */
import path from 'node:path';
import { parseUsd } from '../api/money.ts';
import { type DeriveTools, prepareDerives, UNVERSIONED } from './derive-steps.ts';
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
import { loadTables } from './tables.ts';
import type { Plan, PlannedDeriveStep, PlannedStep } from './types.ts';

export type { DeriveTools } from './derive-steps.ts';
export { jobKey } from './keys.ts';
export { formatProblem, type SpecProblem } from './problems.ts';
export {
  FROM_OUTPUT,
  LOCAL_FILE_PREFIX,
  type Plan,
  type PlannedDerivative,
  type PlannedDeriveStep,
  type PlannedJob,
  type PlannedStep,
} from './types.ts';

export type PlanResult = { ok: true; plan: Plan } | { ok: false; problems: SpecProblem[] };

export interface PlanOptions {
  /** Folders besides the spec's own that local image inputs may be read from (`--allow-input-root`). */
  readonly inputRoots?: readonly string[];
  /** Folders besides the spec's own that `output.dir` may be in (`--allow-output-root`). */
  readonly outputRoots?: readonly string[];
  /** The most jobs the spec's limits may allow (`--max-jobs`; default job-limit.ts MACHINE_JOBS). */
  readonly maxJobs?: number;
  /**
   * The versions of the tools the worker makes derivatives with (sharp's, ffmpeg's), part of each
   * derivative's key so a new version remakes them; default "unversioned".
   */
  readonly deriveTools?: DeriveTools;
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
  const specDir = path.dirname(file);
  const tables = await loadTables(specDir, spec.data ?? {}, (at, message) => report(at, message), problems);
  const files = new LocalFiles(
    specDir,
    (options.inputRoots ?? []).map((root) => path.resolve(root)),
  );
  const steps = prepareSteps(spec, report, tables, options.maxJobs);
  const derives = prepareDerives(spec, steps, files, options.deriveTools ?? UNVERSIONED, report);
  const roots = steps.filter((step) => step.from === null);
  const jobs = expandJobs(roots, spec.vars ?? {}, files, report, (problem) => problems.push(problem));
  const outputDir = outputLocation(specDir, spec.output?.dir ?? path.join('out', spec.campaign));
  const confined = outputProblem(
    outputDir,
    specDir,
    (options.outputRoots ?? []).map((root) => path.resolve(root)),
  );
  if (confined) report(['output', 'dir'], confined);
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
  const deriveSteps: PlannedDeriveStep[] = derives.map((derive) => ({
    id: derive.id,
    from: derive.from,
    output: derive.output,
    derivativeCount: jobCounts.get(derive.from) ?? 0,
    ...(derive.review ? { review: derive.review } : {}),
  }));
  const notify = notifyRuleOf(spec.notify);
  return {
    ok: true,
    plan: {
      campaign: spec.campaign,
      specFile: file,
      outputDir,
      budget: spec.budget?.max_usd === undefined ? null : parseUsd(spec.budget.max_usd),
      ...(spec.budget?.per_run_usd !== undefined && { perRunBudget: parseUsd(spec.budget.per_run_usd) }),
      concurrency: spec.concurrency ?? DEFAULT_CONCURRENCY,
      steps: plannedSteps,
      ...(deriveSteps.length > 0 && { deriveSteps }),
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
 * Why a spec's local `output.dir` may not be written, or null: like local image inputs
 * (local-files.ts), it stays under the spec's folder unless the person running it allows another
 * (`--allow-output-root`), so a spec from elsewhere cannot write into /etc or a home folder.
 * `run --output` is that person's own choice, and is not held to it.
 */
function outputProblem(outputDir: string, specDir: string, roots: readonly string[]): string | null {
  if (outputDir.startsWith('s3://')) return null;
  const inside = (root: string) => {
    const rel = path.relative(root, outputDir);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  if (inside(specDir) || roots.some(inside)) return null;
  return `output.dir ${outputDir} is outside the spec's folder ${specDir}; put it under that folder, or allow it with --allow-output-root ${outputDir}`;
}

/**
 * A folder relative to the spec (made absolute), or an object-storage URL (`s3://bucket/prefix`),
 * kept as written: the store (store/location.ts) reads it, which plan/ may not import.
 */
export function outputLocation(base: string, dir: string): string {
  return dir.startsWith('s3://') ? dir.replace(/\/+$/, '') : path.resolve(base, dir);
}
