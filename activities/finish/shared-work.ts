/**
 * One piece of work per key in this worker, however many callers ask for it. When a campaign rolls
 * over (continue-as-new) with a prediction in flight, the next run starts a new finish activity
 * for it while the old one may still be running here: both then share one piece of work, so the
 * file is downloaded and recorded once.
 */
export class SharedWork<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    let shared = this.running.get(key);
    if (!shared) {
      shared = work().finally(() => this.running.delete(key));
      this.running.set(key, shared);
    }
    return shared;
  }
}
