/**
 * One workflow thread for a process's Workers (worker/workflow-thread.ts): the campaigns' and the
 * governors' Workers get the same creator, which lives until the last of them shuts down. The
 * thread itself is the SDK's; here it is a counting stand-in, so the sharing rules are what fails.
 */
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface.js';
import { describe, expect, it } from 'vitest';
import { creatorShare } from '../../worker/workflow-thread.ts';

const CAMPAIGN_ACTIVITIES = new Set(['createPredictions', 'finishPrediction']);
const NONE = new Set<string>();

/** A creator that counts what is asked of it: how many were made, workflows created, destroys. */
function counting() {
  const seen = { made: 0, workflows: 0, destroyed: 0 };
  const make = async (): Promise<WorkflowCreator> => {
    seen.made += 1;
    return {
      createWorkflow: async () => {
        seen.workflows += 1;
        return { activate: async () => ({}), getAndResetSinkCalls: async () => [], dispose: async () => {} };
      },
      destroy: async () => {
        seen.destroyed += 1;
      },
    };
  };
  return { seen, make };
}

describe('one workflow thread for the campaigns and the governors', () => {
  it('makes one thread for both Workers, and both create their workflows in it', async () => {
    const share = creatorShare();
    const { seen, make } = counting();
    const campaigns = await share.join(CAMPAIGN_ACTIVITIES, make);
    const governors = await share.join(NONE, make);
    // The options are the SDK's to fill in; the stand-in never reads them.
    await campaigns.createWorkflow({} as never);
    await governors.createWorkflow({} as never);
    expect(seen).toEqual({ made: 1, workflows: 2, destroyed: 0 });
  });

  it('keeps the thread while either Worker runs, and ends it with the last, once', async () => {
    const share = creatorShare();
    const { seen, make } = counting();
    const campaigns = await share.join(CAMPAIGN_ACTIVITIES, make);
    const governors = await share.join(NONE, make);
    await campaigns.destroy();
    await campaigns.destroy(); // the SDK may shut a Worker down twice: still one let-go
    expect(seen.destroyed).toBe(0);
    await governors.createWorkflow({} as never);
    await governors.destroy();
    expect(seen).toEqual({ made: 1, workflows: 1, destroyed: 1 });
  });

  it('makes a new thread for Workers created after the last one ended', async () => {
    const share = creatorShare();
    const { seen, make } = counting();
    await (await share.join(CAMPAIGN_ACTIVITIES, make)).destroy();
    await share.join(CAMPAIGN_ACTIVITIES, make);
    expect(seen).toEqual({ made: 2, workflows: 0, destroyed: 1 });
  });

  it('refuses a Worker whose activities the thread was not told of: they would never start eagerly', async () => {
    const share = creatorShare();
    const { seen, make } = counting();
    await share.join(NONE, make);
    await expect(share.join(CAMPAIGN_ACTIVITIES, make)).rejects.toThrow(
      /create the Worker with activities first: .*lacks createPredictions,finishPrediction/,
    );
    expect(seen.made).toBe(1);
  });
});
