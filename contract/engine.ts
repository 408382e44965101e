/**
 * The engine generation: the version of the workflow code's decisions (docs/engine.md,
 * "Upgrades"). Workers of one generation poll task queues of their own, so they never pick up a
 * run whose history they could not replay; a campaign records the generation that started it, and
 * a newer engine continues an older campaign from its records (control/campaign.ts,
 * startOrAttach) instead of replaying its history. Bumping this number is how a release retires
 * every `patched()` marker at once.
 *
 * Pure data: the workflow bundle imports it.
 */

/** Generation 1 is every campaign started before generations were recorded (no memo field). */
export const ENGINE = 3;

/**
 * The task queue a worker of this generation polls for the queue the user named (`mediaflow`,
 * `mediaflow-<campaign>`, `--task-queue X`): `@` cannot occur in a campaign name, so two names
 * never meet in one queue. Generation 1 polled the named queue itself (the upgrade drill's older
 * releases).
 */
export function engineQueue(queue: string, engine = ENGINE): string {
  return engine === 1 ? queue : `${queue}@e${engine}`;
}

/** The generation a campaign's memo records; a memo without one was written by generation 1. */
export function engineOf(memo: Readonly<Record<string, unknown>> | undefined): number {
  const recorded = memo?.engine;
  return typeof recorded === 'number' && Number.isInteger(recorded) && recorded > 0 ? recorded : 1;
}
