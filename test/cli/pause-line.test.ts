/**
 * What a person sees while the service is down (progress `paused`): `status` says why, since
 * when, the next try and that it resumes by itself; the live view's footer and `run`'s plain lines
 * say it in a few words; a campaign that ended says nothing of a pause.
 */
import { describe, expect, it } from 'vitest';
import { renderFrame } from '../../cli/live-frame.ts';
import { pauseLine, pauseState } from '../../cli/pause-line.ts';
import type { CampaignProgress } from '../../contract/campaign.ts';

const SINCE = Date.parse('2026-11-27T07:00:00Z');
const p: CampaignProgress = {
  campaign: 'launch',
  outcome: 'running',
  steps: [
    {
      id: 'still',
      model: 'I4',
      planned: 10,
      created: 2,
      regenerated: 0,
      running: 0,
      waiting: 8,
      succeeded: 2,
      cached: 0,
      failed: 0,
      skipped: 0,
      canceled: 0,
    },
  ],
  spent: 60_000,
  committed: 0,
  budget: null,
  recentFailures: [],
  startedAt: SINCE - 60_000,
  etaMs: null,
  runs: 1,
  paused: {
    kind: 'service_unavailable',
    reason: 'the service answered 503',
    since: SINCE,
    until: SINCE + 20_000,
  },
};

describe('the pause of a service outage', () => {
  it('status names the reason, since when, the next try, and that it resumes by itself', () => {
    expect(pauseLine(p, SINCE + 5_000)).toBe(
      'paused: the service is unavailable since 07:00:00 UTC (the service answered 503); ' +
        'next try at 07:00:20 UTC (in 15s); it resumes by itself, nothing fails meanwhile',
    );
  });

  it('the live footer and the plain lines count down to the next try', () => {
    expect(pauseState(p, SINCE + 5_000)).toBe('paused: service unavailable, next try in 15s');
    const footer = renderFrame(p, {
      width: 120,
      etaMs: null,
      paused: false,
      outage: pauseState(p, SINCE),
    }).at(-1);
    expect(footer).toContain('paused: service unavailable, next try in 20s');
  });

  it('says nothing once the campaign ended, or when it is not paused', () => {
    expect(pauseLine({ ...p, outcome: 'completed' }, SINCE)).toBeNull();
    expect(pauseState({ ...p, paused: undefined }, SINCE)).toBeNull();
  });
});

describe('a campaign a spend cap holds', () => {
  const held: CampaignProgress = { ...p, paused: undefined, cap_reached: 'monthly $5,000 (spent $4,987.20)' };

  it('status names the cap, what is spent, and what resumes it', () => {
    expect(pauseLine(held, SINCE)).toBe(
      'cap_reached: monthly $5,000 (spent $4,987.20); ' +
        'paused: it resumes by itself when the cap is raised (mediaflow caps set) or its period turns',
    );
  });

  it('the live footer shows the cap line', () => {
    const footer = renderFrame(held, {
      width: 120,
      etaMs: null,
      paused: false,
      outage: pauseState(held, SINCE),
    }).at(-1);
    expect(footer).toContain('cap_reached: monthly $5,000 (spent $4,987.20)');
  });

  it('an outage is said first; an ended campaign says neither', () => {
    expect(pauseState({ ...held, paused: p.paused }, SINCE)).toBe(
      'paused: service unavailable, next try in 20s',
    );
    expect(pauseLine({ ...held, outcome: 'completed' }, SINCE)).toBeNull();
  });
});
