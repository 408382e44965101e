/**
 * What `run` does before a campaign starts (decision 4): damaged records repaired, recorded files
 * checked, the plan priced against what is left of the budget and the balance and the key's caps,
 * notices checked for the variables the worker needs, and the plan stored and named current.
 * Every line goes to stderr; a refusal ends `run` with its exit code, having created nothing.
 */
import { auditOutputs } from '../activities/audit.ts';
import { deriveDeps } from '../activities/derive/deps.ts';
import { deriveRecordedOutputs } from '../activities/derive/recorded.ts';
import { downloadFile } from '../activities/download.ts';
import { localFailureKind } from '../activities/failure-kind.ts';
import { sayHowOutputsAreSigned } from '../activities/provenance/credentials/notice.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { formatDollars } from '../api/money.ts';
import type { PlanRef } from '../contract/campaign.ts';
import type { Plan } from '../plan/types.ts';
import { storePlan } from '../records/plan-store.ts';
import { ATTR } from '../telemetry/attributes.ts';
import { inSpan } from '../telemetry/spans.ts';
import { preflightCaps } from './caps-line.ts';
import { refusalLine, reviewLine } from './commands/estimate.ts';
import type { Environment } from './environment.ts';
import { EXIT } from './exit-codes.ts';
import { makeCurrent, repairDamagedRecords } from './manifest-upkeep.ts';
import { stopLine } from './outcomes.ts';
import { type PreflightReport, preflight } from './preflight.ts';
import { budgetText } from './run-budget.ts';

export type Prepared =
  | { readonly ok: false; readonly code: number }
  | { readonly ok: true; readonly ref: PlanRef; readonly report: PreflightReport };

export interface PrepareOptions {
  readonly verify: boolean;
  readonly allowOverBudget: boolean;
}

export async function prepareRun(
  env: Environment,
  service: ServiceClient,
  plan: Plan,
  options: PrepareOptions,
): Promise<Prepared> {
  // A record that does not parse is made whole from the service before anything is priced.
  await repairDamagedRecords(service, plan);
  // Recorded files that are gone (or, with --verify, changed) are restored or priced again.
  const audit = await auditOutputs(service, plan, { verify: options.verify, download: downloadFile });
  if (audit.refetched.length > 0)
    console.error(`fetched again from their predictions: ${audit.refetched.join(', ')}`);
  if (audit.lost.length > 0)
    console.error(
      `output lost, to be generated again: ${audit.lost.map((name) => `${name} (${audit.reasons[name]})`).join(', ')}`,
    );
  const report = await inSpan('preflight', { [ATTR.campaign]: plan.campaign }, () =>
    preflight(service, plan),
  );
  console.error(
    `${plan.campaign}: ${report.toRun} of ${plan.jobs.length} jobs to run, ${formatDollars(report.cost)}` +
      // Below a rejected take: never created, so not in the price (cli/left-to-run.ts).
      (report.left.skipped.length > 0 ? `, ${report.left.skipped.length} skipped (rejected upstream)` : '') +
      ` (${budgetText(report.budget)}, balance ${formatDollars(report.balance)})`,
  );
  if (report.toRun > 0) sayHowOutputsAreSigned();
  if (report.review) console.error(reviewLine(report.review));
  // The key's caps count what every other campaign has spent and committed (docs/caps.md).
  for (const line of await preflightCaps(env, report.cost, report.costByModel)) console.error(line);
  if (report.worstCase !== null) console.error(refusalLine(report.worstCase, report.budget.run));
  for (const line of notifyWarnings(plan)) console.error(line);
  if (report.refusals.length > 0 && !options.allowOverBudget) {
    for (const refusal of report.refusals) console.error(`refusing to start: ${refusal}`);
    console.error(
      'Raise budget.max_usd (the campaign’s, all runs together), or pass --allow-over-budget to run until the budget is spent.',
    );
    return { ok: false, code: EXIT.error };
  }
  // The plan is the first thing written: a full or read-only output disk is named here.
  const ref = await storePlan(plan, report.servicePrices).catch((error: unknown) => {
    const kind = localFailureKind(error);
    if (kind !== 'disk_full' && kind !== 'output_unwritable') throw error;
    return { refused: stopLine(kind, `${(error as Error).message} (output.dir: ${plan.outputDir})`) };
  });
  if ('refused' in ref) {
    console.error(`refusing to start: ${ref.refused}`);
    return { ok: false, code: EXIT.stopped };
  }
  await makeCurrent(plan, ref.digest);
  const derived = await deriveRecordedOutputs(deriveDeps(), plan, ref.digest);
  if (derived.made > 0) console.error(`derived from recorded outputs: ${derived.made} files`);
  for (const line of derived.failed) console.error(`not derived: ${line}`);
  return { ok: true, ref, report };
}

/**
 * A notice target whose secret or URL variable is not set here: the worker reads them when it
 * delivers, so a notice would be lost ("… is not set on the worker"). Said before the campaign
 * starts; the embedded worker shares this environment, a remote worker may have them itself.
 */
export function notifyWarnings(plan: Pick<Plan, 'notify'>, env: NodeJS.ProcessEnv = process.env): string[] {
  const lines: string[] = [];
  for (const target of plan.notify?.targets ?? []) {
    for (const [name, what] of [
      [target.secretEnv, 'signing secret'],
      [target.urlEnv, 'URL'],
    ] as const) {
      if (name !== null && !env[name])
        lines.push(
          `warning: notify: ${name} (a target's ${what}) is not set here; the worker that delivers needs it, or its notices are lost`,
        );
    }
  }
  return lines;
}
