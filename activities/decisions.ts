/**
 * Review decisions as recorded beside the manifest: one create-once JSON file per job key and
 * take, `<output>/.mediaflow/decisions/<campaign>/<key>.<take>.json`, holding a DecisionRecord
 * (contract/review.ts). A re-run reads them so it never asks, nor pays, again; the review page
 * reads them to show what was decided (readDecisions, awaitingReview).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DecisionRecord } from '../contract/review.ts';
import { createOnce } from './create-once.ts';
import { isMissing, type LineWriter, nodeWriter, parseJson } from './jsonl.ts';
import type { ManifestEntry } from './manifest.ts';
import { stateDirOf } from './plan-store.ts';

/** Campaign names and job keys are safe file names (plan/schema.ts SAFE_NAME, plan/keys.ts). */
export function decisionsDir(outputDir: string, campaign: string): string {
  return join(stateDirOf(outputDir), 'decisions', campaign);
}

function decisionFile(outputDir: string, campaign: string, key: string, take: number): string {
  return join(decisionsDir(outputDir, campaign), `${key}.${take}.json`);
}

/** Keys come from the workflow, which took them from a client: only plan keys name files. */
const JOB_KEY = /^[0-9a-f]{32}$/;

/** Records each decision once; a record already there (an earlier attempt's) is kept as it is. */
export function writeDecisions(
  outputDir: string,
  campaign: string,
  records: readonly DecisionRecord[],
  writer: LineWriter = nodeWriter,
): number {
  let written = 0;
  for (const record of records) {
    const parsed = DecisionRecord.parse(record);
    if (!JOB_KEY.test(parsed.key)) throw new Error(`${JSON.stringify(parsed.key)} is not a job key`);
    const file = decisionFile(outputDir, campaign, parsed.key, parsed.take);
    if (createOnce(file, `${JSON.stringify(parsed)}\n`, writer)) written++;
  }
  return written;
}

/** The decision recorded for one take of a job, if any (a record that does not parse counts as none). */
export async function readDecision(
  outputDir: string,
  campaign: string,
  key: string,
  take: number,
): Promise<DecisionRecord | undefined> {
  let text: string;
  try {
    text = await readFile(decisionFile(outputDir, campaign, key, take), 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const parsed = DecisionRecord.safeParse(parseJson(text));
  return parsed.success && parsed.data.key === key ? parsed.data : undefined;
}

/** Every job's latest decision (the highest take decided), by job key. */
export async function readDecisions(
  outputDir: string,
  campaign: string,
): Promise<Map<string, DecisionRecord>> {
  const dir = decisionsDir(outputDir, campaign);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return new Map();
    throw error;
  }
  const latest = new Map<string, DecisionRecord>();
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const parsed = DecisionRecord.safeParse(parseJson(await readFile(join(dir, name), 'utf8')));
    if (!parsed.success) continue; // a file someone else put there is not a decision
    const known = latest.get(parsed.data.key);
    if (!known || known.take < parsed.data.take) latest.set(parsed.data.key, parsed.data);
  }
  return latest;
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
