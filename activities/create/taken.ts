/**
 * A service that honours idempotency keys hands back, to a create sent again under a key, what the
 * key made first. If another job has claimed that prediction meanwhile (a twin with the same input
 * adopted it when this job's worker died between the answer and its claim: reconcile.ts cannot
 * tell whose key made a prediction it finds), both jobs would share one prediction and one file.
 * The job is made again under a key that names the taken prediction (keys.ts, replacementKey),
 * so the service makes a new one: one prediction per job, each paid once.
 *
 * Only replayed answers (a prediction older than its request, batch.ts) are checked, and every
 * answer of an attempt that reconciled (`reconciled`: the service's clock may differ from ours),
 * so the claims are read only in those rare cases.
 */
import type { ServiceClient } from '../../api/client/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { ClaimOwners } from '../../records/claims.ts';
import { type Ready, type Sent, sendCreates } from './batch.ts';
import { replacementKey } from './keys.ts';

export async function remakeTaken(
  client: ServiceClient,
  owners: ClaimOwners,
  entries: readonly Ready[],
  sent: Sent,
  reconciled: boolean,
): Promise<{ sent: Sent; entries: readonly Ready[] }> {
  const suspect = (i: number) => reconciled || sent.replayed.has(i);
  if (!sent.outcomes.some((outcome) => outcome.kind === 'created' && suspect(outcome.i)))
    return { sent, entries };
  const owner = await owners.read();
  const retaken = new Map<number, Ready>();
  for (const outcome of sent.outcomes) {
    if (outcome.kind !== 'created' || !suspect(outcome.i)) continue;
    const entry = entries.find((e) => e.item.i === outcome.i)!;
    const claimedBy = owner.get(outcome.predictionId);
    if (claimedBy !== undefined && claimedBy !== entry.idempotencyKey) {
      retaken.set(outcome.i, {
        ...entry,
        idempotencyKey: replacementKey(entry.idempotencyKey, outcome.predictionId),
      });
    }
  }
  if (retaken.size === 0) return { sent, entries };
  const again = await sendCreates(client, [...retaken.values()]);
  const kept: CreateOutcome[] = sent.outcomes.filter((outcome) => !retaken.has(outcome.i));
  return {
    sent: {
      outcomes: [...kept, ...again.outcomes],
      unsettled: sent.unsettled ?? again.unsettled,
      replayed: new Set(),
    },
    entries: entries.map((entry) => retaken.get(entry.item.i) ?? entry),
  };
}
