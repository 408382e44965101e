/**
 * What the `upgrade` drill must show once this release finished a campaign the previous one
 * started (upgrade.ts). Each fact has its own witness: the files and records in the output folder,
 * the emulator's ledger (which no crash or upgrade touches), the runs' histories and memos, and
 * what the commands printed and returned.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { formatUsd, parseUsd } from '../../api/money.ts';
import { ENGINE, engineQueue } from '../../contract/engine.ts';
import type { CampaignProgress } from '../../contract/progress.ts';
import type { DecisionRecord } from '../../contract/review.ts';
import { continuedReason } from '../../control/handover.ts';
import type { Ledger } from '../../emulator/index.ts';
import type { Plan } from '../../plan/types.ts';
import { type Claim, readClaims } from '../../records/claims.ts';
import { readDecisions } from '../../records/decisions.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import { replayCampaign } from '../lib/replay.ts';
import type { Stack } from '../lib/stack.ts';
import { type Check, check } from './report.ts';
import { checkFiles, readManifest } from './verify.ts';

export interface UpgradeFacts {
  /** The older release's engine generation. */
  oldEngine: number;
  oldStart: WorkflowExecutionDescription;
  newStart: WorkflowExecutionDescription;
  /** Exit codes of the old CLI's two `approve` commands. */
  oldApprovals: (number | null)[];
  /** Read right after the older release was SIGKILLed. */
  atStop: {
    ledger: Ledger;
    /** Jobs recorded (by their records), and how many manifest.jsonl listed. */
    recorded: ManifestEntry[];
    listed: number;
    decisions: Map<string, DecisionRecord>;
    claims: Claim[];
  };
  /** The hero step as the new run showed it: most awaiting review seen, approved when it asked. */
  askedAgain: { maxAwaiting: number; approvedWhenAsked: number };
  newApproval: number | null;
  newRunCode: number | null;
  newRunOutput: string;
  final: CampaignProgress;
}

const credits = (entries: readonly ManifestEntry[]) =>
  entries.reduce((n, entry) => n + parseUsd(entry.credits_used ?? '0'), 0);

export async function upgradeChecks(
  stack: Stack,
  plan: Plan,
  facts: UpgradeFacts,
): Promise<{ checks: Check[]; numbers: Record<string, unknown> }> {
  const { atStop, final } = facts;
  const ledger = await stack.ledger();
  const manifest = await readManifest(plan.outputDir);
  const files = await checkFiles(plan.outputDir, stack.storeOf(plan.outputDir), manifest.entries);
  const decisions = await readDecisions(plan.outputDir, plan.campaign);
  const heroKeys = plan.jobs.filter((job) => job.step === 'hero').map((job) => job.key);
  const planKeys = plan.jobs.map((job) => job.key).sort();
  const recordedKeys = manifest.entries.map((entry) => entry.key).sort();
  const clipsAtStop = (atStop.ledger.byModel.V4 ?? 0) + (atStop.ledger.byModel.V6 ?? 0);
  // In flight at the stop: claimed by the older release, not recorded. The new run must adopt each
  // (its record names the claimed prediction) and create none again (a create claims what it made).
  const recordedAtStop = new Set(atStop.recorded.map((entry) => entry.key));
  const inFlight = atStop.claims.filter((claim) => !recordedAtStop.has(claim.key));
  // A folder's claims are one appended log: what follows the stop's lines is the new run's.
  const newClaims = (await readClaims(stack.storeOf(plan.outputDir), plan.campaign)).slice(
    atStop.claims.length,
  );
  const inFlightKeys = new Set(inFlight.map((claim) => claim.key));
  const createdAgain = newClaims.filter((claim) => inFlightKeys.has(claim.key)).length;
  // Created before the stop but never claimed (SIGKILLed between the service's answer and the
  // claim): the new run sends them again under the same idempotency keys, and the service hands
  // the same predictions back. The new run's claims beyond what the ledger created since show them.
  const resentByKey = newClaims.length - (ledger.predictionsCreated - atStop.ledger.predictionsCreated);
  const recordOf = new Map(manifest.entries.map((entry) => [entry.key, entry]));
  const adopted = inFlight.filter((claim) => recordOf.get(claim.key)?.prediction_id === claim.prediction_id);
  const perModel = Object.fromEntries(plan.steps.map((step) => [step.model, step.jobCount]));
  const maxPerKey = Math.max(0, ...Object.values(ledger.byIdempotencyKey));
  const [oldHistory, replay] = await Promise.all([
    stack.client.workflow.getHandle(facts.oldStart.workflowId, facts.oldStart.runId).fetchHistory(),
    replayCampaign(stack.client, facts.newStart.workflowId),
  ]);
  // What the upgrade leaves running: the older release's rate governor has no worker left to end it.
  const stillRunning: string[] = [];
  for await (const run of stack.client.workflow.list({ query: 'ExecutionStatus="Running"' })) {
    stillRunning.push(`${run.workflowId} (${run.taskQueue})`);
  }
  const reason = oldHistory.events?.at(-1)?.workflowExecutionTerminatedEventAttributes?.reason ?? null;
  const spentBefore = credits(atStop.recorded);
  const recorded = credits(manifest.entries);
  const charged = parseUsd(ledger.creditsCharged);
  const hero = final.steps.find((step) => step.id === 'hero');
  const keptApprovals = heroKeys.slice(0, 2).filter((key) => {
    const before = atStop.decisions.get(key);
    const after = decisions.get(key);
    return before?.action === 'approve' && after?.action === 'approve' && after.at === before.at;
  }).length;
  const newOne = decisions.get(heroKeys[2]!);
  const continuedLine = facts.newRunOutput
    .split('\n')
    .find((line) => line.includes('continued from its records'));

  const numbers = {
    jobs: plan.jobs.length,
    atStop: {
      predictionsCreated: atStop.ledger.predictionsCreated,
      clipsCreated: clipsAtStop,
      recorded: atStop.recorded.length,
      listed: atStop.listed,
      claimed: atStop.claims.length,
      inFlight: inFlight.length,
      spent: formatUsd(spentBefore),
    },
    continuedLine: continuedLine?.trim() ?? null,
    adopted: adopted.length,
    createdAgain,
    claimedByNewRun: newClaims.length,
    unclaimedAtStop: atStop.ledger.predictionsCreated - atStop.claims.length,
    resentByKey,
    outcome: final.outcome,
    recorded: manifest.entries.length,
    shaMismatches: files.mismatched,
    partialFiles: files.partials,
    predictionsCreated: ledger.predictionsCreated,
    byModel: ledger.byModel,
    duplicates: ledger.duplicates,
    maxCreatesPerIdempotencyKey: maxPerKey,
    failedPredictions: ledger.failedPredictions,
    creditsCharged: ledger.creditsCharged,
    manifestCredits: formatUsd(recorded),
    spentByOldRuns: formatUsd(spentBefore),
    spentByNewRun: formatUsd(final.spent),
    terminationReason: reason,
    runsReplayed: replay.runs,
    stillRunning,
  };
  const checks = [
    check(
      `the previous release (engine ${facts.oldEngine}) ran the campaign, two stills approved with its CLI, stopped with predictions in flight`,
      facts.oldStart.memo?.engine === (facts.oldEngine === 1 ? undefined : facts.oldEngine) &&
        facts.oldStart.taskQueue === engineQueue(stack.queueName, facts.oldEngine) &&
        facts.oldApprovals.every((code) => code === 0) &&
        clipsAtStop > 0 &&
        inFlight.length > 0,
      `old run on queue ${facts.oldStart.taskQueue}, memo engine ${String(facts.oldStart.memo?.engine ?? 'none')}; approvals exited ${facts.oldApprovals.join(', ')}; at the SIGKILL ${atStop.ledger.predictionsCreated} predictions created (${clipsAtStop} clips), ${atStop.recorded.length} recorded (${atStop.listed} listed in manifest.jsonl), ${inFlight.length} claimed and in flight`,
    ),
    check(
      "this release's run says it continued the campaign from its records, on its own generation",
      continuedLine !== undefined &&
        facts.newStart.memo?.engine === ENGINE &&
        facts.newStart.taskQueue === engineQueue(stack.queueName),
      `"${continuedLine?.trim() ?? 'no such line'}"; new run on ${facts.newStart.taskQueue}, engine ${String(facts.newStart.memo?.engine)}`,
    ),
    check(
      'campaign completed, the third still approved with the new CLI',
      final.outcome === 'completed' && facts.newRunCode === 0 && facts.newApproval === 0,
      `outcome ${final.outcome}; new run exited ${facts.newRunCode}, new approve exited ${facts.newApproval}`,
    ),
    check(
      'every output present with a matching sha256, one record per job',
      JSON.stringify(recordedKeys) === JSON.stringify(planKeys) &&
        manifest.badLines === 0 &&
        files.mismatched === 0 &&
        files.partials === 0,
      `${manifest.entries.length} records for ${plan.jobs.length} jobs (${manifest.duplicateKeys} repeated, ${manifest.badLines} unparsable); ${files.mismatched} sha256 mismatches, ${files.partials} partial files`,
    ),
    check(
      'the two approvals kept (decision records unchanged), not asked again',
      keptApprovals === 2 &&
        facts.askedAgain.maxAwaiting === 1 &&
        facts.askedAgain.approvedWhenAsked === 2 &&
        newOne?.action === 'approve' &&
        hero?.approved === 3,
      `${keptApprovals}/2 old approvals recorded before the upgrade and unchanged; the new run asked about ${facts.askedAgain.maxAwaiting} still(s) at most, with ${facts.askedAgain.approvedWhenAsked} approved; third still ${newOne?.action ?? 'undecided'}; final approved ${hero?.approved}`,
    ),
    check(
      '0 duplicate predictions: one per job and take (ledger)',
      ledger.predictionsCreated === plan.jobs.length &&
        sameCounts(ledger.byModel, perModel) &&
        ledger.duplicates === 0 &&
        maxPerKey <= 1,
      `ledger ${ledger.predictionsCreated} created for ${plan.jobs.length} jobs (${JSON.stringify(ledger.byModel)}, planned ${JSON.stringify(perModel)}); ${ledger.duplicates} duplicates, at most ${maxPerKey} per idempotency key`,
    ),
    check(
      'every prediction in flight at the stop adopted from its claim, none created again',
      adopted.length === inFlight.length && createdAgain === 0,
      `${adopted.length}/${inFlight.length} in flight at the stop recorded under the prediction claimed for them; ${createdAgain} created again; the new run claimed ${newClaims.length} predictions, ${resentByKey} of them made before the stop but never claimed (handed back under their idempotency keys)`,
    ),
    check(
      'spend = records = ledger, to the micro-dollar',
      charged === recorded && recorded === spentBefore + final.spent,
      `ledger $${ledger.creditsCharged}, records $${formatUsd(recorded)}, = $${formatUsd(spentBefore)} recorded by the old release + $${formatUsd(final.spent)} spent by the new run`,
    ),
    check(
      "the old run's history ends with the continued-from-its-records termination",
      reason === continuedReason(facts.oldEngine),
      `last event: ${reason === null ? 'not a termination' : `terminated, "${reason}"`}`,
    ),
    check(
      "every run of this release's campaign replays deterministically",
      replay.failures.length === 0,
      `${replay.runs} runs replayed, ${replay.failures.length} failed${replay.failures.length > 0 ? `: ${replay.failures[0]}` : ''}`,
    ),
  ];
  return { checks, numbers };
}

function sameCounts(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => a[key] === b[key]);
}
