/**
 * `run` says before the campaign starts when a notice target's variable is not set where it runs
 * (cli/run-preflight.ts): the worker reads it when it delivers, and a notice without it is lost.
 */
import { describe, expect, it } from 'vitest';
import { notifyWarnings } from '../../cli/run-preflight.ts';

const notify = {
  reviewUrl: null,
  targets: [
    {
      kind: 'standard' as const,
      url: 'https://hooks.example.com/n',
      urlEnv: null,
      secretEnv: 'NC_HOOK_SECRET',
      events: null,
    },
    { kind: 'slack' as const, url: null, urlEnv: 'SLACK_URL', secretEnv: null, events: null },
  ],
};

describe('notice variables at preflight', () => {
  it('names each unset variable and what it is', () => {
    expect(notifyWarnings({ notify }, {})).toEqual([
      "warning: notify: NC_HOOK_SECRET (a target's signing secret) is not set here; the worker that delivers needs it, or its notices are lost",
      "warning: notify: SLACK_URL (a target's URL) is not set here; the worker that delivers needs it, or its notices are lost",
    ]);
  });

  it('says nothing when they are set, or when there are no notices', () => {
    expect(notifyWarnings({ notify }, { NC_HOOK_SECRET: 'whsec_x', SLACK_URL: 'https://x' })).toEqual([]);
    expect(notifyWarnings({}, {})).toEqual([]);
  });
});
