/**
 * The client side of the rate governor (workflows/governor/): which governor a key belongs to, and
 * how a starting campaign joins it. The worker that runs governors is worker/governor.ts.
 */
import { createHmac } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Claim } from '../contract/governor-messages.ts';
import { governorWorkflowId, joinSignal } from '../contract/governor-messages.ts';
import { GOVERNOR_TASK_QUEUE } from '../contract/task-queues.ts';

/** The governor's workflow type: a service of the campaigns on its key, never a campaign itself. */
export const GOVERNOR_WORKFLOW = 'governorWorkflow';

/** Domain separation: the fingerprint is nobody else's hash of the key (see keyFingerprint). */
const FINGERPRINT_SALT = 'mediaflow rate governor v1';

/**
 * Names an API key (at one service) in workflow ids, inputs and logs without revealing it: an
 * HMAC-SHA256 keyed by a fixed salt over the service's origin and the key, 128 bits kept. Safe
 * because API keys are long random secrets: recovering one from its fingerprint is a brute force
 * over the key space, not a dictionary. The salt keeps the fingerprint from matching a plain
 * sha256 of the key that some other system may log; a fixed salt (not a per-machine one) is
 * what lets workers and clients on different machines agree on one governor. The origin makes
 * the same key string at two services two governors, as they are two rate limits.
 */
export function keyFingerprint(apiUrl: string, apiKey: string): string {
  return createHmac('sha256', FINGERPRINT_SALT)
    .update(`${new URL(apiUrl).origin}\n${apiKey}`)
    .digest('hex')
    .slice(0, 32);
}

/** Domain separation for the caps ledger's name of a key, as for the governor's. */
const CAPS_SALT = 'mediaflow caps ledger v1';

/**
 * Names an API key alone (no service origin) for its spend caps ledger (docs/caps.md, "One ledger
 * per API key"): money is the key's, however the service's URL is spelt (`localhost` or
 * `127.0.0.1`, a trailing dot, a second hostname), while a rate limit is an endpoint's. An
 * HMAC-SHA256 as keyFingerprint, with its own salt, so the two names of one key never match.
 */
export function capsFingerprint(apiKey: string): string {
  return createHmac('sha256', CAPS_SALT).update(apiKey).digest('hex').slice(0, 32);
}

/** What a client names a key by: its governor (per endpoint) and its caps ledger (the key's). */
export interface KeyNames {
  readonly governor: string;
  readonly caps: CapsKey;
}

/**
 * The key's caps ledger, and the one this spelling of the URL had when ledgers were keyed like
 * governors (`spelt`): its caps and spend carry over to the key's ledger (control/caps.ts).
 */
export interface CapsKey {
  readonly ledger: string;
  readonly spelt?: string;
}

export function keyNames(apiUrl: string, apiKey: string): KeyNames {
  const governor = keyFingerprint(apiUrl, apiKey);
  return { governor, caps: { ledger: capsFingerprint(apiKey), spelt: governor } };
}

/**
 * Puts a campaign that just started into its key's governor, starting the governor when none
 * runs (signal-with-start: one atomic call, so two campaigns starting at once meet in one).
 */
export async function joinGovernor(client: Client, key: string, claim: Claim): Promise<void> {
  await client.workflow.signalWithStart(GOVERNOR_WORKFLOW, {
    workflowId: governorWorkflowId(key),
    taskQueue: GOVERNOR_TASK_QUEUE,
    args: [{ key }],
    signal: joinSignal,
    signalArgs: [claim],
  });
}
