/**
 * Review decisions as recorded beside the manifest, in the campaign's store (store/): one
 * create-once record per job key and take, `.mediaflow/decisions/<campaign>/<key>.<take>.json`,
 * holding a DecisionRecord (contract/review.ts). A re-run reads them so it never asks, nor pays,
 * again; the review page reads them to show what was decided (readDecisions, awaitingReview).
 */
import { DecisionRecord } from '../contract/review.ts';
import { decisionKey, openStore, type Store } from '../store/index.ts';
import { parseJson } from './jsonl.ts';
import type { ManifestEntry } from './manifest.ts';

/** Campaign names and job keys are safe key segments (plan/schema.ts SAFE_NAME, plan/keys.ts). */
function decisionsPrefix(campaign: string): string {
  return decisionKey(`${campaign}/`);
}

function recordKeyOf(campaign: string, key: string, take: number): string {
  return `${decisionsPrefix(campaign)}${key}.${take}.json`;
}

/** Keys come from the workflow, which took them from a client: only plan keys name records. */
const JOB_KEY = /^[0-9a-f]{32}$/;

/** Records each decision once; a record already there (an earlier attempt's) is kept as it is. */
export async function writeDecisions(
  outputDir: string,
  campaign: string,
  records: readonly DecisionRecord[],
  store: Store = openStore(outputDir),
): Promise<number> {
  let written = 0;
  for (const record of records) {
    const parsed = DecisionRecord.parse(record);
    if (!JOB_KEY.test(parsed.key)) throw new Error(`${JSON.stringify(parsed.key)} is not a job key`);
    const created = await store.createOnce(
      recordKeyOf(campaign, parsed.key, parsed.take),
      `${JSON.stringify(parsed)}\n`,
    );
    if (created.created) written++;
  }
  return written;
}

function parsedDecision(text: string | undefined, key?: string): DecisionRecord | undefined {
  if (text === undefined) return undefined;
  const parsed = DecisionRecord.safeParse(parseJson(text));
  // A record someone else put there, or one that names another job, is not a decision.
  return parsed.success && (key === undefined || parsed.data.key === key) ? parsed.data : undefined;
}

/** The decision recorded for one take of a job, if any (a record that does not parse counts as none). */
export async function readDecision(
  outputDir: string,
  campaign: string,
  key: string,
  take: number,
  store: Store = openStore(outputDir),
): Promise<DecisionRecord | undefined> {
  return parsedDecision(await store.read(recordKeyOf(campaign, key, take)), key);
}

/** Every job's latest decision (the highest take decided), by job key. */
export async function readDecisions(
  outputDir: string,
  campaign: string,
  store: Store = openStore(outputDir),
): Promise<Map<string, DecisionRecord>> {
  const latest = new Map<string, DecisionRecord>();
  for await (const decision of eachDecision(campaign, store)) {
    const known = latest.get(decision.key);
    if (!known || known.take < decision.take) latest.set(decision.key, decision);
  }
  return latest;
}

/** Every decision of a campaign, by `<key>.<take>`: an earlier take's too (the manifest's lines each show their own). */
export async function readTakeDecisions(
  campaign: string,
  store: Store,
): Promise<Map<string, DecisionRecord>> {
  const all = new Map<string, DecisionRecord>();
  for await (const decision of eachDecision(campaign, store))
    all.set(`${decision.key}.${decision.take}`, decision);
  return all;
}

async function* eachDecision(campaign: string, store: Store): AsyncIterable<DecisionRecord> {
  for await (const name of store.list(decisionsPrefix(campaign))) {
    if (!name.endsWith('.json')) continue;
    const decision = parsedDecision(await store.read(name));
    if (decision) yield decision;
  }
}

/**
 * Keys of reviewed jobs whose latest saved take has no decision: what a reviewer has to decide.
 * A take is saved when the manifest holds it (`regenerations` is its take); a job being retaken
 * has a `regenerate` decision on its latest saved take, so it is not listed.
 */
export function awaitingReview(
  entries: Iterable<ManifestEntry>,
  decisions: ReadonlyMap<string, DecisionRecord>,
  reviewedSteps: ReadonlySet<string>,
): string[] {
  const awaiting: string[] = [];
  for (const entry of entries) {
    if (!reviewedSteps.has(entry.step)) continue;
    const decided = decisions.get(entry.key);
    if (!decided || decided.take < entry.regenerations) awaiting.push(entry.key);
  }
  return awaiting;
}

/**
 * The `review` field a manifest line gains (mediaflow export, and the S3 manifest it writes): who
 * decided the line's take, what and when. Decisions come after a take is recorded, so the line's
 * own record never holds them; they are joined from the decision records when the view is made.
 * A take decided by timeout says so (`source: "timeout"`, no `by`).
 */
export function reviewOf(
  entry: Pick<ManifestEntry, 'key' | 'regenerations'>,
  decisions: ReadonlyMap<string, DecisionRecord>,
): { review?: Pick<DecisionRecord, 'action' | 'by' | 'at' | 'take' | 'source' | 'note'> } {
  const decided = decisions.get(entry.key);
  if (!decided || decided.take !== entry.regenerations) return {};
  const { action, by, at, take, source, note } = decided;
  return { review: { action, by, at, take, source, note } };
}
