/**
 * The sheet's address in "review awaiting" notices (review/sheet-url.ts, cli/notify-environment.ts):
 * built from the review server's public URL, the same one `--public-url` and `review-link --url`
 * take, as `<public URL>/sheet/<campaign>/`; never a link; a value holding one is refused at `run`.
 */
import { describe, expect, it } from 'vitest';
import { standardBody } from '../../activities/notify/payload.ts';
import { withNotifyEnvironment } from '../../cli/notify-environment.ts';
import type { Plan } from '../../plan/types.ts';
import { noticeSheetUrl } from '../../review/sheet-url.ts';
import { stillsAndClips } from '../helpers/review-fixtures.ts';

const target = { kind: 'slack' as const, url: null, urlEnv: 'SLACK', secretEnv: null, events: null };
const plan = (reviewUrl: string | null = null): Plan => ({
  ...stillsAndClips(),
  campaign: 'spring-sale',
  notify: { targets: [target], reviewUrl },
});

describe('the sheet address a notice carries', () => {
  it('is the public URL’s /sheet/<campaign>/, from the environment when the spec says none', () => {
    const notify = withNotifyEnvironment(plan(), {
      MEDIAFLOW_REVIEW_URL: 'https://review.example.com',
    }).notify;
    expect(notify?.reviewUrl).toBe('https://review.example.com/sheet/spring-sale/');
    const body = JSON.parse(
      standardBody({
        id: 'msg_1',
        campaign: 'spring-sale',
        at: '2026-11-27T09:00:00.000Z',
        target,
        reviewUrl: notify!.reviewUrl,
        notice: { type: 'review.awaiting', steps: [{ id: 'still', awaiting: 3 }] },
      }),
    );
    expect(body.data.review_url).toBe('https://review.example.com/sheet/spring-sale/');
  });

  it('keeps a proxy’s path prefix; the spec’s value wins over the environment’s', () => {
    const notify = withNotifyEnvironment(plan('https://example.com/review/'), {
      MEDIAFLOW_REVIEW_URL: 'https://other.example.com',
    }).notify;
    expect(notify?.reviewUrl).toBe('https://example.com/review/sheet/spring-sale/');
  });

  it('fills {campaign} into a whole address, as before', () => {
    expect(noticeSheetUrl('https://review.example.com/c/{campaign}', 'a b')).toBe(
      'https://review.example.com/c/a%20b',
    );
  });

  it('is absent without a public URL: the notice names the command instead', () => {
    expect(withNotifyEnvironment(plan(), {}).notify?.reviewUrl).toBeNull();
  });

  it('refuses a review link pasted as the URL: it would send a person’s key to every receiver', () => {
    const link =
      'https://review.example.com/eyJpZCI6IjE5YmRkOGZkY2MyMDg4MTkiLCJjYW1wYWlnbiI6ImEifQ.c2lnbmF0dXJlc2lnbmF0dXJlc2ln/';
    expect(() => withNotifyEnvironment(plan(), { MEDIAFLOW_REVIEW_URL: link })).toThrow(
      /MEDIAFLOW_REVIEW_URL: the review URL holds a review link/,
    );
    expect(() => noticeSheetUrl('https://review.example.com/?t=1', 'a')).toThrow(/never a link/);
  });
});
