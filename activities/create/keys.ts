/**
 * The Idempotency-Key of one create: campaign, job key, regeneration, and the prediction it
 * replaces when a recorded job's file was lost. Scoped to the campaign, because a service that
 * remembers a key hands its prediction to anyone who sends the key again: another campaign with
 * the same prompt would otherwise silently receive this one's prediction (and its file, billed to
 * the first). Hashed, because the service caps keys at 255 characters (the emulator's rule,
 * docs/service-assumptions.md) and campaign names and prediction ids add up.
 */
import { createHash } from 'node:crypto';

export interface CreateKeyParts {
  readonly campaign: string;
  readonly jobKey: string;
  readonly regen: number;
  /** The prediction whose lost output this create replaces (a new generation), or null. */
  readonly replaces: string | null;
}

/** 64 hex characters. */
export function createKey({ campaign, jobKey, regen, replaces }: CreateKeyParts): string {
  const text = `${campaign}:${jobKey}-r${regen}${replaces === null ? '' : `:replaces:${replaces}`}`;
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The key of a create that replaces a prediction this campaign claimed under `previous` but that
 * ended canceled or failed, or that the service forgot: a service that remembers `previous` would
 * hand that dead prediction back, so the job could never be made again.
 */
export function replacementKey(previous: string, deadPredictionId: string): string {
  return createHash('sha256').update(`${previous}:replaces:${deadPredictionId}`).digest('hex');
}
