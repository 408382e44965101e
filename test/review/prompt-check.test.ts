/**
 * A regeneration's prompt is checked against the job's model before it is sent, by the page and
 * by `mediaflow regenerate --prompt` alike (both go through checkPrompts): a prompt the service
 * would refuse is refused now, with the reason, and the job keeps its take.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_LENGTH } from '../../api/catalogue/index.ts';
import type { ReviewDecision } from '../../contract/review.ts';
import { checkPrompts } from '../../review/prompt-check.ts';
import { DecisionsBody } from '../../review/sheet-routes.ts';

const models = new Map([
  ['still', 'I1'],
  ['clip', 'V4'],
] as const);
const modelOf = (key: string) => models.get(key as 'still' | 'clip');

describe('checkPrompts', () => {
  it.each<[string, ReviewDecision, string | null]>([
    [
      'a prompt at the limit',
      { key: 'still', action: 'regenerate', prompt: 'x'.repeat(MAX_PROMPT_LENGTH) },
      null,
    ],
    [
      'a prompt one character over (the CLI case)',
      { key: 'still', action: 'regenerate', prompt: 'x'.repeat(MAX_PROMPT_LENGTH + 1) },
      "the prompt is 10,001 characters, over I1's limit of 10,000; nothing was sent and the current take is kept",
    ],
    [
      'a 20,000-character prompt for a video (the page case)',
      { key: 'clip', action: 'regenerate', prompt: 'y'.repeat(20_000) },
      "the prompt is 20,000 characters, over V4's limit of 10,000; nothing was sent and the current take is kept",
    ],
    ['a regeneration without a new prompt', { key: 'still', action: 'regenerate' }, null],
    ['an approval', { key: 'clip', action: 'approve' }, null],
    // Refused here, never sent: the workflow's history would hold it.
    [
      'a key of no job',
      { key: 'nope', action: 'regenerate', prompt: 'x'.repeat(20_000) },
      'no job of this campaign has this key',
    ],
  ])('%s', (_what, decision, refusal) => {
    const { valid, refused } = checkPrompts([decision], modelOf);
    if (refusal === null) {
      expect(valid).toEqual([decision]);
      expect(refused).toEqual([]);
    } else {
      expect(valid).toEqual([]);
      const reason = models.has(decision.key as 'still') ? 'prompt_invalid' : 'unknown_job';
      expect(refused).toEqual([{ key: decision.key, reason, message: refusal }]);
    }
  });
});

describe('a page’s decisions', () => {
  it('name job keys, 32 hex characters: anything else is refused before the workflow sees it', () => {
    const body = (key: string) => DecisionsBody.safeParse({ decisions: [{ key, action: 'approve' }] });
    expect(body(`${'0'.repeat(31)}a`).success).toBe(true);
    for (const key of ['x'.repeat(2_000_000), '0'.repeat(33), 'G'.repeat(32), ''])
      expect(body(key).success, key.slice(0, 40)).toBe(false);
  });
});
