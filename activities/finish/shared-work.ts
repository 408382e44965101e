/**
 * One piece of work per key in this worker, however many callers ask for it. When a campaign rolls
 * over (continue-as-new) with a prediction in flight, the next run starts a new finish activity
 * for it while the old one may still be running here: both then share one piece of work, so the
 * file is downloaded and recorded once.
 *
 * A result is kept `keepMs` after the work succeeds: a batch that reported its first items early
 * (finish/batch.ts) leaves the rest `pending`, and the workflow's next batch for them may ask
 * just after they ended; it gets the same result (with the credits the service charged) rather
 * than finishing the job again. A failure is forgotten at once, so a retry does the work again.
 */
export class SharedWork<T> {
  private readonly running = new Map<string, Promise<T>>();
  private readonly keepMs: number;

  constructor(keepMs = 60_000) {
    this.keepMs = keepMs;
  }

  run(key: string, work: () => Promise<T>): Promise<T> {
    let shared = this.running.get(key);
    if (!shared) {
      const forget = () => this.running.delete(key);
      shared = work();
      shared.then(
        () => setTimeout(forget, this.keepMs).unref(),
        () => forget(),
      );
      this.running.set(key, shared);
    }
    return shared;
  }
}
