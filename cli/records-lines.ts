/**
 * How `estimate` and `plan` say what the campaign's records make of a plan (cli/left-to-run.ts):
 * the same words and the same JSON in both, so a user sees one account of an edit before paying.
 */
import { relative } from 'node:path';
import { formatUsd } from '../api/money.ts';
import { isS3Url } from '../store/index.ts';
import { countWhy, type LeftToRun } from './left-to-run.ts';

const NAMES_SHOWN = 4;

/**
 * "records in out: 32 of 48 jobs recorded with their files (free); 16 to run, $2.96: 16 edited
 * since recorded", then, when an edit voids approvals, the line naming them. `cost` is the price
 * of the jobs left as the caller knows it ("$2.96", or "$2.90 + 2 priced by the service").
 */
export function recordsLines(left: LeftToRun, jobs: number, outputDir: string, cost: string): string[] {
  // Where the user stands reads better than the absolute path the plan holds.
  const where = isS3Url(outputDir) ? outputDir : relative(process.cwd(), outputDir) || '.';
  if (left.recorded === 0 && left.skipped.length === 0 && left.toRun.every(({ why }) => why === 'new')) {
    return [`records in ${where}: none of these jobs yet; all ${jobs} to run, ${cost}`];
  }
  const counts = countWhy(left.toRun);
  const why = [
    counts.edited > 0 && `${counts.edited} edited since recorded`,
    counts.new > 0 && `${counts.new} new`,
    counts.lost > 0 && `${counts.lost} recorded but their file is gone`,
  ].filter(Boolean);
  const lines = [
    `records in ${where}: ${left.recorded} of ${jobs} jobs recorded with their files (free); ` +
      `${left.toRun.length} to run, ${cost}${why.length > 0 ? `: ${why.join(', ')}` : ''}` +
      skippedText(left),
  ];
  const voided = left.voidedApprovals;
  if (voided.length > 0) {
    const names = voided.slice(0, NAMES_SHOWN).map((approval) => `${approval.step}/${approval.name}`);
    const more = voided.length > NAMES_SHOWN ? `, … (${voided.length - NAMES_SHOWN} more)` : '';
    const replaced = voided.filter((approval) => approval.replaced).length;
    lines.push(
      `approvals this plan voids: ${voided.length} (${names.join(', ')}${more}); ` +
        `${replaced} of their jobs were edited and are made and reviewed again, ${voided.length - replaced} are no longer in the plan`,
    );
  }
  return lines;
}

/** "; 1 skipped: its still was rejected": the jobs below a rejected take, which cost nothing. */
function skippedText(left: LeftToRun): string {
  if (left.skipped.length === 0) return '';
  const byStep = new Map<string, number>();
  for (const { rejectedStep } of left.skipped) byStep.set(rejectedStep, (byStep.get(rejectedStep) ?? 0) + 1);
  const parts = [...byStep].map(
    ([step, n]) => `${n} skipped: ${n === 1 ? 'its' : 'their'} ${step} was rejected`,
  );
  return `; ${parts.join(', ')}`;
}

/** The same account as JSON: money as decimal strings, keys in snake_case. */
export function recordsJson(left: LeftToRun, costMicros: number, unpricedJobs = 0) {
  const counts = countWhy(left.toRun);
  return {
    recorded_jobs: left.recorded,
    /** Below a rejected take: not run, not priced. */
    skipped_jobs: left.skipped.length,
    to_run: {
      jobs: left.toRun.length,
      /** Without the `unpriced_jobs` only the service can price (plan, which asks no service). */
      usd: formatUsd(costMicros),
      unpriced_jobs: unpricedJobs,
      edited: counts.edited,
      new: counts.new,
      lost: counts.lost,
    },
    voided_approvals: left.voidedApprovals.map((approval) => ({
      step: approval.step,
      name: approval.name,
      key: approval.key,
      replaced: approval.replaced,
      by: approval.by,
      at: approval.at,
    })),
  };
}
