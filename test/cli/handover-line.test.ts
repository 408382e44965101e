/** A decision refused at the handover from an older engine reads as what to do, not as a bug. */
import { expect, it } from 'vitest';
import { errorLine } from '../../cli/errors.ts';
import { ENGINE } from '../../contract/engine.ts';
import { HandoverError } from '../../control/handover.ts';

it('says the campaign is being continued and to retry, in one line', () => {
  expect(errorLine(new HandoverError('mediaflow-launch', ENGINE))).toBe(
    `campaign "launch" is being continued by engine ${ENGINE}: retry in a few seconds`,
  );
});
