/**
 * What `validate` says of a derive step, at the line and column to fix: each message names what
 * is wrong and what is allowed, before anything runs.
 */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../plan/index.ts';
import { planText } from './write-spec.ts';

const LOGO = Buffer.from(encode({ width: 1, height: 1, data: new Uint8Array(4).fill(9), channels: 4 }));

/** Line 5 is the still step, line 9 the clip step; a derive step starts at 13, its first item at 16. */
const spec = (derive: string, extra = '') => `version: 1
campaign: derive
data: { products: products.csv }
steps:
  - id: still
    model: I1
    for_each: products
    input: { prompt: "{{row.name}}", aspect_ratio: "1:1" }
  - id: clip
    model: V4
    from: still
    input: { prompt: spin }
${derive}${extra}`;

async function problems(yaml: string, files: Record<string, string | Buffer> = {}): Promise<string[]> {
  const result = await planText(yaml, {
    'products.csv': 'sku,name,headline\nA1,Cup,Hot\n',
    'logo.png': LOGO,
    ...files,
  });
  return result.ok
    ? ['the spec was accepted']
    : result.problems.map(formatProblem).map((line) => line.replace(/^.*?:(\d+:\d+:)/, '$1'));
}

const step = (from: string, ...items: string[]) =>
  `  - id: made\n    from: ${from}\n    derive:\n${items.map((item) => `      - ${item}\n`).join('')}`;

describe('derive step problems', () => {
  it.each([
    [
      'an unknown operation, with a suggestion',
      step('still', 'crop: { aspect_ratio: "1:1" }', 'resise: { width: 10 }'),
      [
        '17:9: unknown operation "resise" (did you mean "resize"?); operations: crop, resize, pad, rotate, text, overlay, format, trim, fps, mute, audio, frame, preset',
      ],
    ],
    [
      'two operations in one item',
      step('still', '{ rotate: { degrees: 90 }, crop: { aspect_ratio: "1:1" } }'),
      [
        '16:9: one item holds 2 operations (crop, rotate): each item of derive: is one, applied in order; write them as 2 items',
      ],
    ],
    [
      'a bad option value',
      step('still', 'crop: { aspect_ratio: "1:1", focus: center }'),
      [
        '16:45: steps[2].derive[0].crop.focus is the text "center", which is not allowed (did you mean "centre"?); allowed: "centre", "attention", "entropy" or { x, y }, each from 0 to 1',
      ],
    ],
    [
      'a colour that is not one',
      step('still', 'text: { value: Hi, colour: white }'),
      [
        '16:36: steps[2].derive[0].text.colour must be a colour "#rrggbb" or "#rrggbbaa" (alpha last), not the text "white"',
      ],
    ],
    [
      'a resize without a size',
      step('still', 'resize: { fit: contain }'),
      ['16:17: resize needs width, height or both (one alone keeps the proportions)'],
    ],
    [
      'a size that is not one',
      step('still', 'format: { type: jpeg, max_bytes: 2 megabytes }'),
      [
        '16:42: steps[2].derive[0].format.max_bytes must be a size: a number of bytes, or a text such as "500kb" or "2mb" (a kb is 1,000 bytes), not the text "2 megabytes"',
      ],
    ],
    [
      'an unknown preset',
      step('still', 'preset: instagram-sqare'),
      [
        '16:17: unknown preset "instagram-sqare" (did you mean "instagram-square"?); presets: instagram-square, instagram-portrait, instagram-story, reels, facebook-feed, linkedin-banner, display-banner, youtube-thumbnail, x-post (add one under presets:)',
      ],
    ],
    [
      'clip work on a still',
      step('still', 'trim: { duration: 3 }', 'mute: true'),
      [
        '16:9: trim works on clips, and step "still" makes stills (I1)',
        '17:9: mute works on clips, and step "still" makes stills (I1)',
      ],
    ],
    [
      'clip work after frame',
      step('clip', 'frame: { at: 1 }', 'fps: { value: 12 }', 'format: { type: mp4 }'),
      [
        '17:9: fps works on clips, and after frame (operation 1) the derivative is a still: put fps before frame',
        "18:25: mp4 is a clip's format, and after frame (operation 1) the derivative is a still: use jpeg, png, webp or avif",
      ],
    ],
    [
      "a crop of a clip by sharp's strategy",
      step('clip', 'crop: { aspect_ratio: "9:16", focus: entropy }'),
      [
        "16:46: focus: entropy weighs a still's pixels (sharp's strategy): a clip's crop takes centre or { x, y }",
      ],
    ],
    [
      "a still's format for a clip",
      step('clip', 'format: { type: jpeg, quality: 80 }'),
      [
        '16:25: jpeg is a still\'s format, and step "clip" makes clips (V4): take a still first with - frame: { at: <seconds> }, or use mp4 or webm',
      ],
    ],
    [
      "max_bytes on a clip's format",
      step('clip', 'format: { type: webm, max_bytes: 2mb }'),
      ['16:31: max_bytes applies to stills (jpeg, png, webp, avif), not to webm'],
    ],
    [
      'two formats, and a format before other work',
      step('still', 'format: { type: png }', 'rotate: { degrees: 90 }', 'format: { type: jpeg }'),
      [
        '17:9: format (operation 1) must come last: it says how the file is written',
        '18:9: a second format: a derivative is written once, as format (operation 1) says; keep one',
      ],
    ],
    [
      'a pad smaller than the frame a resize made',
      step(
        'still',
        'resize: { width: 1080, height: 1920 }',
        'rotate: { degrees: 90 }',
        'pad: { width: 1920, height: 1000 }',
      ),
      [
        '18:9: cannot pad 1920×1080 to 1920×1000: the canvas is smaller than the picture (crop or resize first)',
      ],
    ],
    [
      'a text reading a column the table lacks, or an unknown var',
      step('still', 'text: { value: "{{row.headlin}} by {{brnad}}" }'),
      [
        '16:25: no column "headlin" in products.csv (sku, name, headline) (did you mean "headline"?)',
        '16:44: unknown variable {{brnad}}; known here: row.headline, row.name, row.sku, variant',
      ],
    ],
    [
      'a font and an overlay that are not there',
      step('still', 'text: { value: Hi, font: fonts/brand.ttf }', 'overlay: { image: brand/logo.png }'),
      [
        expect.stringMatching(
          /^16:34: font file "fonts\/brand.ttf" not found \(looked for .*\/fonts\/brand.ttf\); a font is a path relative to the spec/,
        ),
        expect.stringMatching(
          /^17:27: image file "brand\/logo.png" not found \(looked for .*\/brand\/logo.png\); an overlay takes a path relative to the spec$/,
        ),
      ],
    ],
  ])('%s', async (_what, derive, expected) => {
    expect(await problems(spec(derive))).toEqual(expected);
  });

  it('refuses a font that is not one, by its first bytes', async () => {
    expect(await problems(spec(step('still', 'text: { value: Hi, font: logo.png }')))).toEqual([
      '16:34: "logo.png" is not a TrueType or OpenType font (checked its first bytes)',
    ]);
  });

  it('takes review: on a derive step', async () => {
    expect(
      await problems(
        spec(
          step('still', 'rotate: { degrees: 90 }').replace(
            '    derive:',
            '    review: { timeout: 72h }\n    derive:',
          ),
        ),
      ),
    ).toEqual(['the spec was accepted']);
  });

  it("refuses a model step's fields on a derive step, each where it is written", async () => {
    const derive = `  - id: made
    from: still
    model: I1
    input: { prompt: x }
    matrix: { size: [s, m] }
    repeat: 2
    review: { edit_prompt: true }
    derive: [ { rotate: { degrees: 90 } } ]
`;
    expect(await problems(spec(derive))).toEqual([
      '15:5: a derive step makes its files on the worker, with no model: remove model:, or derive: to make it a model step',
      '16:5: a derive step has no model to give an input to: its operations say what it does',
      '17:5: a derive step makes one file per job of its from: step: no matrix (add another derive step for each variant)',
      '18:5: a derive step makes one file per job of its from: step: the same operations give the same file, so no repeat',
      "19:15: a derivative has no prompt and is never regenerated (the same operations make the same bytes): no edit_prompt; edit the step's operations instead",
    ]);
  });

  it('needs from:, naming a step that is not itself a derive step', async () => {
    expect(await problems(spec('  - id: made\n    derive: [ { rotate: { degrees: 90 } } ]\n'))).toEqual([
      '14:5: derive step "made" needs from: <step>, the step whose outputs it makes files from',
    ]);
    expect(await problems(spec(step('stil', 'rotate: { degrees: 90 }')))).toEqual([
      '14:11: from: "stil" is not a step (did you mean "still"?); steps: still, clip, made',
    ]);
    const twice = `${step('still', 'rotate: { degrees: 90 }')}  - id: again\n    from: made\n    derive: [ { mute: true } ]\n  - id: remix\n    model: I1\n    from: made\n    input: { prompt: x }\n`;
    expect(await problems(spec(twice))).toEqual([
      '18:11: step "made" is a derive step: derivatives of derivatives are not made yet; list the operations in one step, from: still',
      '22:11: step "made" is a derive step, whose files are made on the worker, not by jobs a model can follow; follow its from: step "still"',
    ]);
  });

  it('still says a step without model: or derive: needs a model', async () => {
    expect(await problems(spec('  - id: made\n    from: still\n'))).toEqual([
      '13:5: steps[2].model is required: one of "V1", "V2", "V3", "V4", "V5", "V6", "I1", "I2", "I3", "I4", "I5"',
    ]);
  });
});
