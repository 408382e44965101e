/**
 * What a notice says on the wire (activities/notify/payload.ts): Standard Webhooks events with
 * exact money, Slack messages people read, review links with the campaign filled in.
 */
import { describe, expect, it } from 'vitest';
import { slackBody, standardBody } from '../../activities/notify/payload.ts';
import type { Notice, NotifyRequest } from '../../contract/notify.ts';

const summary = {
  steps: [
    { id: 'still', succeeded: 3, cached: 1, failed: 1, skipped: 0, canceled: 0 },
    { id: 'clip', succeeded: 2, cached: 0, failed: 0, skipped: 1, canceled: 0 },
  ],
  spent: 12_345_678,
  budget: 50_000_000,
};

function request(notice: Notice, reviewUrl: string | null = null): NotifyRequest {
  return {
    id: 'msg_run_completed',
    campaign: 'spring <sale>',
    at: '2026-11-27T06:00:00.000Z',
    target: {
      kind: 'standard',
      url: 'https://hooks.example.com/x',
      urlEnv: null,
      secretEnv: 'S',
      events: null,
    },
    reviewUrl,
    notice,
  };
}

const data = (r: NotifyRequest) => JSON.parse(standardBody(r)).data;
const text = (r: NotifyRequest) => JSON.parse(slackBody(r)).text as string;

describe('notice payloads', () => {
  it('completed: counts per step and money exact, as a decimal string and integer micro-dollars', () => {
    const r = request({ type: 'campaign.completed', summary });
    expect(JSON.parse(standardBody(r))).toEqual({
      type: 'campaign.completed',
      timestamp: '2026-11-27T06:00:00.000Z',
      data: {
        campaign: 'spring <sale>',
        outcome: 'completed',
        steps: [
          { step: 'still', succeeded: 3, cached: 1, failed: 1, skipped: 0, canceled: 0 },
          { step: 'clip', succeeded: 2, cached: 0, failed: 0, skipped: 1, canceled: 0 },
        ],
        spent: { usd: '12.345678', micros: 12_345_678 },
        budget: { usd: '50.00', micros: 50_000_000 },
      },
    });
    expect(text(r)).toBe(
      'mediaflow: campaign "spring &lt;sale&gt;" completed: 5 made, 1 already done, 1 failed, 1 skipped; spent $12.345678 of $50.00',
    );
  });

  it('stopped: the reason and what to do about it', () => {
    const r = request({
      type: 'campaign.stopped',
      outcome: 'balance_exhausted',
      reason: 'balance too low',
      summary,
    });
    expect(data(r)).toMatchObject({
      outcome: 'balance_exhausted',
      reason: 'balance too low',
      action: 'add funds to the account, then run the spec again: it goes on where it stopped',
    });
    expect(text(r)).toContain('stopped (balance_exhausted): balance too low. What to do: add funds');
  });

  it('review awaiting: the sheet link with the campaign filled in, or the command without one', () => {
    const notice: Notice = { type: 'review.awaiting', steps: [{ id: 'still', awaiting: 4 }] };
    const linked = request(notice, 'https://review.example.com/c/{campaign}');
    expect(data(linked)).toEqual({
      campaign: 'spring <sale>',
      steps: [{ step: 'still', awaiting: 4 }],
      awaiting: 4,
      review_url: 'https://review.example.com/c/spring%20%3Csale%3E',
      review_command: 'mediaflow review spring <sale>',
    });
    expect(text(linked)).toContain('4 takes await review');
    expect(text(linked)).toContain('review them at <https://review.example.com/c/spring%20%3Csale%3E>');
    expect(text(request(notice))).toContain('review them with `mediaflow review spring <sale>`');
  });

  it('cap threshold: the cap, the percent, spent and limit exact', () => {
    const r = request({
      type: 'cap.threshold',
      cap: 'monthly',
      model: null,
      percent: 80,
      spent: 4_000_000_000,
      limit: 5_000_000_000,
    });
    expect(data(r)).toMatchObject({
      cap: 'monthly',
      percent: 80,
      spent: { usd: '4000.00', micros: 4_000_000_000 },
      limit: { usd: '5000.00', micros: 5_000_000_000 },
    });
    expect(text(r)).toContain('monthly cap 80 % reached: $4000.00 of $5000.00');
  });
});
