/** A decision that cannot be taken reads as what happened and what to do, not as a bug. */
import { expect, it } from 'vitest';
import { errorLine } from '../../cli/errors.ts';
import { ENGINE } from '../../contract/engine.ts';
import { HandoverError } from '../../control/handover.ts';
import { CampaignEndedError } from '../../review/campaign.ts';

it('at the handover: the campaign is being continued, retry, in one line', () => {
  expect(errorLine(new HandoverError('mediaflow-launch', ENGINE))).toBe(
    `campaign "launch" is being continued by engine ${ENGINE}: retry in a few seconds`,
  );
});

it('to an ended campaign: it has ended and nothing awaits a decision', () => {
  const ended = new CampaignEndedError('launch has ended (completed): nothing awaits a decision');
  expect(errorLine(ended)).toBe('launch has ended (completed): nothing awaits a decision');
});
