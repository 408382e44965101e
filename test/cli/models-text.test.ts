/**
 * `mediaflow models` says when a published default lies outside the allowed values (I1's
 * `match_input_image`), rather than showing it beside them without a word.
 */
import { describe, expect, it } from 'vitest';
import { describeModel } from '../../api/catalogue/index.ts';
import { modelsText } from '../../cli/commands/models.ts';

describe('models', () => {
  it('says that I1’s default aspect ratio is the service’s own, not a value to set', () => {
    const line = modelsText([describeModel('I1')])
      .split('\n')
      .find((text) => text.trim().startsWith('aspect_ratio'));
    expect(line).toContain('one of 1:1, 16:9, 9:16, default match_input_image (if unset)');
    expect(line!.length).toBeLessThanOrEqual(80);
  });

  it('a default among the allowed values is shown plainly', () => {
    const text = modelsText([describeModel('V4')]);
    expect(text).not.toContain('(if unset)');
  });
});
