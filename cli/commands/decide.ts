/**
 * `mediaflow approve|reject|regenerate <campaign> <job>…`: review decisions for scripts, sent as
 * the page sends them (the `review` update, in batches), each acknowledged or refused with why.
 * Exit 1 when any was refused or named no job of a reviewed step.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { ReviewAck, ReviewAction, ReviewDecision } from '../../contract/review.ts';
import { matchJobs, type Named } from '../../review/match-jobs.ts';
import { buildModel } from '../../review/model.ts';
import { sendChecked } from '../../review/prompt-check.ts';
import { reviewedDerivativesOf } from '../../review/reviewed-derivatives.ts';
import { openCampaign } from '../campaign-pages.ts';
import { openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { command } from '../invocation.ts';
import { jsonOutput } from '../json-output.ts';

interface DecideOptions {
  note?: string;
  prompt?: string;
  json?: boolean;
}

const VERBS: readonly [ReviewAction, string][] = [
  ['approve', 'Approve jobs awaiting review: their descendants may start.'],
  ['reject', 'Reject jobs awaiting review: their descendants are skipped, at no cost.'],
  ['regenerate', 'Make a new take of jobs awaiting review (paid, reviewed again).'],
];

export function register(program: Command): void {
  for (const [action, description] of VERBS) {
    const sub = program
      .command(`${action} <campaign> <jobs...>`)
      .description(`${description} Jobs by name, key or glob (quote it: 'hero-*').`)
      .option('--note <text>', 'a note recorded with the decision')
      .option('--json', 'print { accepted, refused } as JSON');
    if (action === 'regenerate') sub.option('--prompt <text>', 'a new prompt (where the step allows it)');
    sub.action((campaign: string, jobs: string[], options: DecideOptions) =>
      decide(action, campaign, jobs, options),
    );
  }
}

/** Who decided: the local user, as far as the system says. */
function who(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

async function decide(action: ReviewAction, campaign: string, jobs: string[], options: DecideOptions) {
  const env = await openEnvironment({ service: false });
  if (env.embedded && !env.embedded.attached) console.error(env.embedded.summary);
  const opened = await openCampaign(env, campaign).catch(async (error: unknown) => {
    await env.close();
    throw error;
  });
  let handedBack = true;
  try {
    const sources = await opened.load();
    const model = buildModel(sources);
    const derivatives = reviewedDerivativesOf(sources.plan);
    const reviewed: Named[] = [
      ...model.steps.filter((step) => step.reviewed).flatMap((step) => step.items),
      ...derivatives,
    ];
    if (reviewed.length === 0) throw new UserError(`${campaign} has no reviewed step: nothing to decide`);
    const { items, unmatched } = matchJobs(reviewed, jobs);
    if (unmatched.length > 0) {
      throw new UserError(
        `no job of a reviewed step matches ${unmatched.map((p) => `"${p}"`).join(', ')}`,
        `${command('status', campaign)} lists the jobs awaiting review`,
      );
    }
    const by = who();
    const decisions: ReviewDecision[] = items.map((item) => ({
      key: item.key,
      action,
      ...(options.note && { note: options.note }),
      ...(options.prompt && { prompt: options.prompt }),
      ...(by && { by }),
    }));
    const ack = await sendChecked(decisions, model, opened.send, derivatives);
    const names = new Map(items.map((item) => [item.key, item.name]));
    print(action, ack, names, options.json === true);
    if (ack.refused.length > 0) process.exitCode = 1;
  } finally {
    handedBack = await opened.close();
    await env.close();
  }
  // The worker carried for the decisions may still run what they started (an approved still's
  // video, for minutes) after its grace: left as a detach leaves it, to run again on the next
  // worker, and the command ends now rather than when the video does.
  if (!handedBack) process.exit(process.exitCode ?? 0);
}

function print(
  action: ReviewAction,
  ack: ReviewAck,
  names: ReadonlyMap<string, string>,
  json: boolean,
): void {
  const name = (key: string) => names.get(key) ?? key;
  if (json) {
    const accepted = ack.accepted.map((key) => ({ key, name: name(key) }));
    const refused = ack.refused.map((r) => ({ ...r, name: name(r.key) }));
    process.stdout.write(jsonOutput({ action, accepted, refused }));
    return;
  }
  if (ack.accepted.length > 0)
    console.log(`${action}: ${ack.accepted.length} (${ack.accepted.map(name).join(', ')})`);
  for (const refusal of ack.refused) console.log(`refused ${name(refusal.key)}: ${refusal.message}`);
}
