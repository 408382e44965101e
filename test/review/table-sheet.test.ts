/**
 * A table-driven campaign's contact sheet (review page and report): its jobs carry their row's
 * name and the cells they read as axes, so the sheet lays out one product per line and the
 * matrix across, and can be regrouped by any cell the jobs read (colour, say).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planCampaign } from '../../plan/index.ts';
import { buildModel } from '../../review/model.ts';
import { defaultLayout, sheetOf } from '../../review/sheet.ts';

const catalogue = path.resolve(import.meta.dirname, '../../specs/catalogue.yaml');

const result = await planCampaign(catalogue);
if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('\n'));
const model = buildModel({
  plan: result.plan,
  reviewedSteps: new Set(),
  entries: new Map(),
  decisions: new Map(),
  progress: null,
});
const [stills, clips] = model.steps;

describe("the contact sheet of a table's steps", () => {
  it('has a line per product and a column per aspect ratio, the clips too', () => {
    for (const step of [stills!, clips!]) {
      expect(defaultLayout(step)).toEqual({ rows: ['row'], cols: ['aspect_ratio'] });
      const sheet = sheetOf(step, defaultLayout(step));
      expect(sheet.rowLabels.slice(0, 3)).toEqual(['TEE-01', 'CAP-02', 'SNK-03']);
      expect(sheet.rowLabels).toHaveLength(10);
      expect(sheet.colLabels).toEqual(['1:1', '9:16']);
    }
  });

  it('groups by a cell the jobs read, as by a matrix axis', () => {
    expect(stills!.axes).toEqual(expect.arrayContaining(['row.colour', 'row.headline']));
    const byColour = sheetOf(stills!, { rows: ['row.colour'], cols: [] });
    expect(byColour.rowLabels).toEqual(expect.arrayContaining(['mint', 'lemon', 'sky blue', 'charcoal']));
  });
});
