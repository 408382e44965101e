/**
 * Where each thing a campaign writes lives, relative to the store's root (the output folder, or
 * the bucket prefix). One layout for both backends, and the folder one is the layout output
 * folders have always had, so old folders keep working:
 *
 * | key | what | written |
 * |---|---|---|
 * | `<step>/<name>.<ext>` | an output file | streamed, replaced whole |
 * | `manifest.jsonl` | the user's view of the records | appended (folder) / materialized (S3) |
 * | `.mediaflow/plans/<digest>/…` | a stored plan, in pages (plan-pages.ts) | once, content-addressed |
 * | `.mediaflow/records/<name>` | a job's record (one manifest line) | create-once |
 * | `.mediaflow/claims/<campaign>/<name>` | a prediction a campaign created | create-once |
 * | `.mediaflow/decisions/<name>` | a review decision | create-once |
 * | `.mediaflow/refusals/<campaign>/<name>` | a take the service's content policy refused | create-once |
 * | `.mediaflow/unsaved/<campaign>/<name>` | an output paid for whose download failed for good | create-once |
 * | `.mediaflow/current/<campaign>.json` | the digest of the plan a campaign last ran | replaced by each `run` |
 * | `.mediaflow/moved/<name>` | where an edited-away job's output was set aside | create-once |
 * | `.mediaflow/derivatives/<key>.json` | a derivative made (or failed) from a job's output | replaced when made again |
 * | `.mediaflow/staged/<job key>.<writer>.<ext>` | an output downloaded, waiting for its record | moved to its name once recorded |
 */
const STATE = '.mediaflow';

export const MANIFEST_KEY = 'manifest.jsonl';

/**
 * Whether a key is the engine's own (records, claims, plans, decisions, the manifest) rather than
 * an output: such a key is never handed out as a file, whatever a manifest line says.
 */
export function isEngineKey(key: string): boolean {
  const segments = key.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.');
  return segments.includes(STATE) || segments.join('/') === MANIFEST_KEY;
}

export const RECORDS = `${STATE}/records/`;
export const DECISIONS = `${STATE}/decisions/`;
const PLANS = `${STATE}/plans/`;

export function recordKey(name: string): string {
  return RECORDS + name;
}

/** Review decisions, create-once like records (records/decisions.ts). */
export function decisionKey(name: string): string {
  return DECISIONS + name;
}

/** Content refusals, one create-once record per refused take (records/refusals.ts). */
export function refusalsOf(campaign: string): string {
  return `${STATE}/refusals/${campaign}/`;
}

/** Paid outputs whose download failed for good, one create-once record each (records/unsaved.ts). */
export function unsavedOf(campaign: string): string {
  return `${STATE}/unsaved/${campaign}/`;
}

export function claimsOf(campaign: string): string {
  return `${STATE}/claims/${campaign}/`;
}

export function claimKey(campaign: string, name: string): string {
  return claimsOf(campaign) + name;
}

/** Which plan each campaign last ran (records/current-plan.ts): what the manifest lists as current. */
export const CURRENT_PLANS = `${STATE}/current/`;

export function currentPlanKey(campaign: string): string {
  return `${CURRENT_PLANS}${campaign}.json`;
}

/** Derivatives (records/derivatives.ts), one record per derivative key. */
export const DERIVATIVES = `${STATE}/derivatives/`;

export function derivativeKey(key: string): string {
  return `${DERIVATIVES}${key}.json`;
}

/**
 * Outputs downloaded but not yet in place (records/staged-outputs.ts): a file is moved to its name
 * only by the writer whose record was created, so a second worker finishing the same prediction
 * never replaces the recorded bytes with its own (their signatures differ).
 */
export const STAGED = `${STATE}/staged/`;

/** Outputs of edited-away jobs moved off a name the current plan writes (records/set-aside.ts). */
export const MOVED = `${STATE}/moved/`;

export function planPrefix(digest: string): string {
  return `${PLANS + digest}/`;
}
