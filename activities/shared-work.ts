/**
 * Work that two activities may ask for at once in one worker, done once. When a campaign rolls
 * over (continue-as-new) with a prediction in flight, the next run starts a new activity for it
 * while the old run's may still be running here: both then wait on the same piece of work, so a
 * file is fetched and recorded once. Each activity keeps its own heartbeat, and the work is not
 * tied to either one's cancellation: a canceled campaign cancels its predictions upstream, and
 * the waits then end with their canceled state.
 */
import { Context } from '@temporalio/activity';
import { retryableFailure } from './service-failure.ts';

const HEARTBEAT_EVERY_MS = 2_000;

export class SharedWork<T> {
  private readonly under = new Map<string, Promise<T>>();

  async run(key: string, heartbeat: unknown, work: () => Promise<T>): Promise<T> {
    const context = Context.current();
    context.heartbeat(heartbeat);
    const beat = setInterval(() => context.heartbeat(heartbeat), HEARTBEAT_EVERY_MS);
    let shared = this.under.get(key);
    if (!shared) {
      shared = work().finally(() => this.under.delete(key));
      this.under.set(key, shared);
    }
    try {
      return await Promise.race([shared, context.cancelled]);
    } catch (error) {
      throw retryableFailure(error);
    } finally {
      clearInterval(beat);
    }
  }
}
