/** One create of one job: the job key and its regeneration. Also the Idempotency-Key sent. */
export function createKey(jobKey: string, regen: number): string {
  return `${jobKey}-r${regen}`;
}
