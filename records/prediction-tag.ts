/**
 * A prediction's id as part of a record's name: hashed, since ids are the service's and not safe
 * names; 16 hex digits keep two of one job apart.
 */
import { createHash } from 'node:crypto';

export function predictionTag(predictionId: string): string {
  return createHash('sha256').update(predictionId).digest('hex').slice(0, 16);
}
