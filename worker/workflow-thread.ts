/**
 * One workflow thread for the Workers of one process. The SDK gives every `Worker` a thread of its
 * own (a V8 isolate running the workflow bundle): a `mediaflow worker` polls two queues, campaigns
 * and rate governors, so it paid for two isolates (docs/engine.md, "Memory at start"). A governor
 * speaks a few times per campaign, so it shares the campaigns' thread.
 *
 * Written here because the SDK has no option for it: `Worker.createWorkflowCreator` is its
 * extension point (protected, static), and the subclass below hands every Worker made through it
 * the creator the first of them made, destroyed when the last of them shuts down.
 */
import { type CompiledWorkerOptions, type Logger, Worker } from '@temporalio/worker';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface.js';
import type { WorkflowBundleWithSourceMapAndFilename as Bundle } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input.js';

/** How a process makes its Workers: `Worker` itself (a thread each) or `sharedWorkflowThread()`. */
export type WorkerClass = typeof Worker;

/**
 * A Worker class whose instances share one workflow thread. The first Worker created through it
 * must register every activity the workflows call (the campaign worker): the SDK tells the thread
 * which activities this process runs, and only those are started eagerly, beside the workflow.
 */
export function sharedWorkflowThread(): WorkerClass {
  const share = creatorShare();
  return class SharedThreadWorker extends Worker {
    protected static override createWorkflowCreator(
      bundle: Bundle,
      options: CompiledWorkerOptions,
      logger: Logger,
    ): Promise<WorkflowCreator> {
      const activities = new Set(options.activities.keys());
      return share.join(activities, () => Worker.createWorkflowCreator(bundle, options, logger));
    }
  };
}

interface Shared {
  readonly creator: Promise<WorkflowCreator>;
  readonly activities: ReadonlySet<string>;
  users: number;
}

/**
 * One creator for every Worker that joins: the first joiner's `make` makes it; each joiner gets a
 * handle whose `destroy` lets go of it, and the last to let go destroys it. A later joiner that
 * runs activities the first did not register is refused (they would never start eagerly).
 */
export function creatorShare() {
  let shared: Shared | undefined;
  return {
    async join(
      activities: ReadonlySet<string>,
      make: () => Promise<WorkflowCreator>,
    ): Promise<WorkflowCreator> {
      shared ??= { creator: make(), activities, users: 0 };
      const mine = shared;
      const missing = [...activities].filter((name) => !mine.activities.has(name));
      if (missing.length > 0) {
        throw new Error(
          `create the Worker with activities first: the shared workflow thread lacks ${missing}`,
        );
      }
      const creator = await mine.creator;
      mine.users += 1;
      let destroyed = false;
      return {
        createWorkflow: (workflow) => creator.createWorkflow(workflow),
        destroy: async () => {
          if (destroyed) return;
          destroyed = true;
          mine.users -= 1;
          if (mine.users > 0) return;
          if (shared === mine) shared = undefined;
          await creator.destroy();
        },
      };
    },
  };
}
