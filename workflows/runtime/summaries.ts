/**
 * What the Temporal Web UI and CLI show of a campaign (user metadata): the workflow's summary and
 * details, set at start, and a one-line summary per activity naming its jobs, so the UI lists
 * "finish 3: hero-sneaker-marble-v1, …" instead of thirty identical finishPredictions rows with
 * `{"i": 0}` inputs. Summaries are metadata on the commands, not decisions: replay ignores them.
 *
 * Pure functions: the workflow bundle imports it.
 */
import { formatDollars } from '../../api/money.ts';
import type { CampaignInput, PendingJob } from '../../contract/campaign.ts';
import { CAMPAIGN_KEY, OUTCOME_KEY } from './search-attributes.ts';

/** Temporal keeps summaries short (the server caps them); the UI shows one line anyway. */
const MAX_SUMMARY = 200;

function clip(text: string, max = MAX_SUMMARY): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function jobLabel({ job, regen }: PendingJob): string {
  return regen > 0 ? `${job.name} (regeneration ${regen})` : job.name;
}

/** "create 12: hero-sneaker-marble-v1, hero-watch-marble-v1, …" */
export function createSummary(batch: readonly PendingJob[]): string {
  return listSummary('create', batch);
}

/** "finish 12: hero-sneaker-marble-v1, …" (the predictions of one create batch, finishPredictions) */
export function finishBatchSummary(flights: readonly { readonly pending: PendingJob }[]): string {
  return listSummary(
    'finish',
    flights.map(({ pending }) => pending),
  );
}

function listSummary(verb: string, jobs: readonly PendingJob[]): string {
  let text = `${verb} ${jobs.length}: `;
  for (const [n, pending] of jobs.entries()) {
    const name = `${n > 0 ? ', ' : ''}${jobLabel(pending)}`;
    // Room for ", …" when names are left off.
    if (text.length + name.length > MAX_SUMMARY - 3) return `${text}, …`;
    text += name;
  }
  return text;
}

/** "load jobs 101–200 of 3000" */
export function loadSummary(cursor: number, count: number, jobCount: number): string {
  return `load jobs ${cursor + 1}–${Math.min(cursor + count, jobCount)} of ${jobCount}`;
}

export const READ_LIMITS_SUMMARY = "read the service's rate limits";
export const CANCEL_SUMMARY = 'cancel the predictions this campaign claimed, upstream';

function jobCount(input: CampaignInput): number {
  return input.steps.reduce((sum, step) => sum + step.jobCount, 0);
}

/** One line: "product-launch: 30 jobs (hero 10 × I1, teaser 20 × V4), budget $40.00, spec 3f2a…" */
export function campaignSummary(input: CampaignInput): string {
  const steps = input.steps.map((step) => `${step.id} ${step.jobCount} × ${step.model}`).join(', ');
  const budget = input.budget === null ? 'no budget' : `budget ${formatDollars(input.budget)}`;
  return clip(
    `${input.campaign}: ${jobCount(input)} jobs (${steps}), ${budget}, spec ${input.plan.digest.slice(0, 12)}`,
  );
}

/** Markdown for the UI's details panel: what the campaign is and how to find it again. */
export function campaignDetails(input: CampaignInput, searchable: boolean): string {
  const lines = [
    `**Campaign** ${input.campaign}`,
    `**Spec digest** \`${input.plan.digest}\` (plan \`${input.plan.file}\`)`,
    `**Budget** ${input.budget === null ? 'none' : formatDollars(input.budget)}, ${input.concurrency} predictions in flight at most`,
    `**Output** \`${input.outputDir}\``,
    '',
    '**Steps**',
    // A list, not a table: the UI draws markdown tables without cell spacing.
    ...input.steps.map(
      (step) =>
        `- ${step.id}: ${step.jobCount} × ${step.model}, ${step.retries} retries, ${step.concurrency === null ? 'no step limit' : `${step.concurrency} at a time`}`,
    ),
    '',
    searchable
      ? `Find it: \`${CAMPAIGN_KEY.name}="${input.campaign}"\`; its outcome is \`${OUTCOME_KEY.name}\` (a canceled campaign completes, with \`${OUTCOME_KEY.name}="canceled"\`).`
      : 'The namespace has no mediaflow search attributes registered (docs/deployment.md): `mediaflow status` reads the outcome.',
  ];
  return lines.join('\n');
}
