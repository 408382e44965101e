/**
 * Campaigns driven by a table (`data:` and `for_each:`): one job per row, cells read as
 * {{row.<column>}} in the step and its descendants, problems reported in the table (file:line)
 * or at the template (file:line:col), keys that follow only the cells a job reads, and names
 * taken from the row.
 */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { formatProblem, type PlannedJob } from '../../plan/index.ts';
import { planOk, planText } from './write-spec.ts';

const PRODUCTS = `sku,name,colour,headline,photo
TEE-01,Classic tee,mint,"Soft, breathable",tee.png
CND-05,Crème brûlée candle,cream,Vanilla,candle.png
TIN-06,抹茶の缶,sage,静かな朝に,tin.png
`;

function png(shade: number): Buffer {
  return Buffer.from(encode({ width: 1, height: 1, data: new Uint8Array(4).fill(shade), channels: 4 }));
}

const PHOTOS = { 'tee.png': png(10), 'candle.png': png(20), 'tin.png': png(30) };

const SPEC = (
  table = 'products.csv',
  prompt = '{{row.name}} in {{row.colour}}: {{row.headline}}',
) => `version: 1
campaign: feed
data:
  products: ${table}
steps:
  - id: still
    model: I1
    for_each: products
    matrix: { aspect_ratio: ["1:1", "9:16"] }
    input:
      prompt: "${prompt}"
      input_image: "{{row.photo}}"
      aspect_ratio: "{{aspect_ratio}}"
  - id: clip
    model: V4
    from: still
    input: { prompt: "orbit around the {{row.colour}} {{row.name}}" }
`;

async function problemsOf(spec: string, files: Record<string, string | Buffer>): Promise<string[]> {
  const result = await planText(spec, files);
  if (result.ok) throw new Error('the spec was accepted');
  return result.problems.map((problem) =>
    formatProblem({ ...problem, file: problem.file.split('/').pop()! }),
  );
}

const byStep = (jobs: readonly PlannedJob[], step: string) => jobs.filter((job) => job.step === step);

describe('a step with for_each', () => {
  it('makes a job per row times its matrix, and its descendants read the same row', async () => {
    const plan = await planOk(SPEC(), { 'products.csv': PRODUCTS, ...PHOTOS });
    const stills = byStep(plan.jobs, 'still');
    expect(stills.map((job) => job.name)).toEqual([
      'still-tee-01-1-1',
      'still-tee-01-9-16',
      'still-cnd-05-1-1',
      'still-cnd-05-9-16',
      'still-tin-06-1-1',
      'still-tin-06-9-16',
    ]);
    expect(stills.map((job) => job.input.prompt)).toEqual([
      'Classic tee in mint: Soft, breathable',
      'Classic tee in mint: Soft, breathable',
      'Crème brûlée candle in cream: Vanilla',
      'Crème brûlée candle in cream: Vanilla',
      '抹茶の缶 in sage: 静かな朝に',
      '抹茶の缶 in sage: 静かな朝に',
    ]);
    const clips = byStep(plan.jobs, 'clip');
    expect(clips.map((job) => job.input.prompt)).toEqual([
      'orbit around the mint Classic tee',
      'orbit around the mint Classic tee',
      'orbit around the cream Crème brûlée candle',
      'orbit around the cream Crème brûlée candle',
      'orbit around the sage 抹茶の缶',
      'orbit around the sage 抹茶の缶',
    ]);
    expect(clips[0]!.name).toBe('clip-tee-01-1-1');
    // The cells a job reads go with it, as matrix values do, for grouping in plan and review.
    expect(stills[0]!.vars).toMatchObject({
      aspect_ratio: '1:1',
      'row.colour': 'mint',
      'row.headline': 'Soft, breathable',
    });
    expect(clips[0]!.vars).toMatchObject({ 'row.colour': 'mint', 'row.name': 'Classic tee' });
  });

  it('reads TSV, JSON Lines and YAML lists to the same jobs as CSV', async () => {
    const csv = await planOk(SPEC(), { 'products.csv': PRODUCTS, ...PHOTOS });
    const rows = [
      { sku: 'TEE-01', name: 'Classic tee', colour: 'mint', headline: 'Soft, breathable', photo: 'tee.png' },
      {
        sku: 'CND-05',
        name: 'Crème brûlée candle',
        colour: 'cream',
        headline: 'Vanilla',
        photo: 'candle.png',
      },
      { sku: 'TIN-06', name: '抹茶の缶', colour: 'sage', headline: '静かな朝に', photo: 'tin.png' },
    ];
    const jsonl = await planOk(SPEC('products.jsonl'), {
      'products.jsonl': `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`,
      ...PHOTOS,
    });
    const yaml = await planOk(SPEC('products.yaml'), {
      'products.yaml': rows.map((row) => `- ${JSON.stringify(row)}`).join('\n'),
      ...PHOTOS,
    });
    const tsv = await planOk(SPEC('products.tsv'), {
      'products.tsv': `${['sku', 'name', 'colour', 'headline', 'photo'].join('\t')}\n${rows.map((row) => Object.values(row).join('\t')).join('\n')}\n`,
      ...PHOTOS,
    });
    const keys = (jobs: readonly PlannedJob[]) => jobs.map((job) => [job.name, job.key]);
    expect(keys(tsv.jobs)).toEqual(keys(csv.jobs));
    expect(keys(jsonl.jobs)).toEqual(keys(csv.jobs));
    expect(keys(yaml.jobs)).toEqual(keys(csv.jobs));
  });

  it('names jobs by row number without an id or sku column, and keeps names unique and safe', async () => {
    const table = 'name,colour\n抹茶,sage\nCup,mint\n../etc,navy\n';
    const spec = `version: 1
campaign: feed
data: { things: things.csv }
steps:
  - id: still
    model: I2
    for_each: things
    input: { prompt: "{{row.name}} in {{row.colour}}" }
`;
    const plan = await planOk(spec, { 'things.csv': table });
    expect(plan.jobs.map((job) => job.name)).toEqual(['still-row1', 'still-row2', 'still-row3']);
    const repeated = await planOk(spec.replace('for_each: things', 'for_each: things\n    repeat: 2'), {
      'things.csv': table,
    });
    expect(repeated.jobs.map((job) => job.name)).toEqual([
      'still-row1-v1',
      'still-row1-v2',
      'still-row2-v1',
      'still-row2-v2',
      'still-row3-v1',
      'still-row3-v2',
    ]);
    const ids = 'id,name\n抹茶,a\n../x,b\nA B,c\n';
    const named = await planOk(spec.replace('{{row.colour}}', 'blue').replace('things.csv', 'ids.csv'), {
      'ids.csv': ids,
    });
    expect(named.jobs.map((job) => job.name)).toEqual(['still-row1', 'still-x', 'still-a-b']);
  });
});

describe('job keys of a table-driven step', () => {
  it('change only for the row edited, and only when a cell its jobs read changes', async () => {
    const before = await planOk(SPEC(), { 'products.csv': PRODUCTS, ...PHOTOS });
    const edited = await planOk(SPEC(), {
      'products.csv': PRODUCTS.replace('Vanilla', 'Vanilla bean'),
      ...PHOTOS,
    });
    const changed = before.jobs.filter((job, index) => job.key !== edited.jobs[index]!.key);
    // The candle's two stills; its clips, whose parent changed; nothing of the other rows.
    expect(changed.map((job) => job.name)).toEqual([
      'still-cnd-05-1-1',
      'clip-cnd-05-1-1',
      'still-cnd-05-9-16',
      'clip-cnd-05-9-16',
    ]);
    // A column no template reads: no key changes.
    const extra = await planOk(SPEC(), {
      'products.csv': PRODUCTS.replace('photo\n', 'photo,notes\n').replace(/\.png\n/g, '.png,x\n'),
      ...PHOTOS,
    });
    expect(extra.jobs.map((job) => job.key)).toEqual(before.jobs.map((job) => job.key));
  });

  it("follow a row's picture by its content", async () => {
    const before = await planOk(SPEC(), { 'products.csv': PRODUCTS, ...PHOTOS });
    const repainted = await planOk(SPEC(), { 'products.csv': PRODUCTS, ...PHOTOS, 'tin.png': png(99) });
    const changed = before.jobs.filter((job, index) => job.key !== repainted.jobs[index]!.key);
    expect(changed.map((job) => job.name).filter((name) => name.startsWith('still'))).toEqual([
      'still-tin-06-1-1',
      'still-tin-06-9-16',
    ]);
  });
});

describe('problems of a table', () => {
  it('counts rows in the per-step cap, and refuses a second for_each down a chain', async () => {
    const capped = SPEC().replace('campaign: feed', 'campaign: feed\nlimits: { jobs_per_step: 5 }');
    expect(await problemsOf(capped, { 'products.csv': PRODUCTS, ...PHOTOS })).toEqual([
      'campaign.yaml:7:9: step "still" expands to 6 jobs (3 rows × 2 combinations × 1 variant), above the cap of 5 per step; raise limits.jobs_per_step if you mean it',
    ]);
    const twice = SPEC().replace('    from: still\n', '    from: still\n    for_each: products\n');
    expect(await problemsOf(twice, { 'products.csv': PRODUCTS, ...PHOTOS })).toEqual([
      'campaign.yaml:17:15: step "clip" follows "still", whose jobs are made per row of "products": each of its jobs already reads its parent\'s row; remove for_each',
    ]);
  });

  it('says where a CSV is malformed, by file and line', async () => {
    const broken = PRODUCTS.replace('"Soft, breathable"', 'Soft, breathable');
    expect(await problemsOf(SPEC(), { 'products.csv': broken, ...PHOTOS })).toEqual([
      'products.csv:2: this row has 6 cells, the header 5 (sku, name, colour, headline, photo); a cell holding a comma must be quoted: "Tee, white"',
    ]);
    const unclosed = `${PRODUCTS}X-1,"open,mint,a,tee.png\n`;
    expect(await problemsOf(SPEC(), { 'products.csv': unclosed, ...PHOTOS })).toEqual([
      'products.csv:5: a quoted cell opened here is never closed (a " is missing)',
    ]);
    expect(await problemsOf(SPEC(), { 'products.csv': 'sku,name,name\n1,a,b\n', ...PHOTOS })).toEqual([
      'products.csv:1: column "name" is named twice in the header',
    ]);
    expect(await problemsOf(SPEC(), { 'products.csv': 'sku,name\nA1\n', ...PHOTOS })).toEqual([
      'products.csv:2: this row has 1 cell, the header 2 (sku, name)',
    ]);
    expect(
      await problemsOf(SPEC(), { 'products.csv': 'sku,name,colour,headline,photo\n', ...PHOTOS }),
    ).toEqual(['products.csv:1: the table has no rows: a step reading it would make no job']);
    expect(await problemsOf(SPEC(), { 'products.csv': 'sku,__proto__\nA1,x\n', ...PHOTOS })).toEqual([
      'products.csv:1: "__proto__" cannot name a column (JavaScript gives it a special meaning); rename it',
    ]);
  });

  it('says where JSON Lines and YAML lists are malformed', async () => {
    expect(
      await problemsOf(SPEC('p.jsonl'), { 'p.jsonl': '{"sku":"a","name":"x"}\n{"sku": b}\n[1]\n' }),
    ).toEqual([
      expect.stringMatching(/^p\.jsonl:2: not JSON: /),
      'p.jsonl:3: each row must be an object of column: value',
    ]);
    expect(await problemsOf(SPEC('p.yaml'), { 'p.yaml': '- sku: a\n  name: x\n- just text\n' })).toEqual([
      'p.yaml:3:3: each row must be an object of column: value',
    ]);
  });

  it('names an unknown column at the template, with the columns there are', async () => {
    const spec = SPEC('products.csv', '{{row.name}}: {{row.headlin}}');
    expect(await problemsOf(spec, { 'products.csv': PRODUCTS, ...PHOTOS })).toEqual([
      'campaign.yaml:11:30: no column "headlin" in products.csv (sku, name, colour, headline, photo) (did you mean "headline"?)',
    ]);
  });

  it('refuses a row that would be paid twice, an empty cell a job reads, and a repeated sku', async () => {
    const table = `${PRODUCTS}TEE-02,Classic tee,mint,"Soft, breathable",tee.png\nCUP-07,Cup,,Hot,tee.png\nTIN-06,Tin,red,Cold,tin.png\n`;
    expect(await problemsOf(SPEC(), { 'products.csv': table, ...PHOTOS })).toEqual([
      'products.csv:5: row 4: makes the same job of step "still" as row 1 (the cells it reads are equal), so it would be paid twice; remove the row, or read a column that tells them apart',
      'products.csv:6: row 5: empty "colour" cell, which step "still" reads (steps[0].input.prompt); fill it in, or list the column under the table\'s optional:',
      'products.csv:6: row 5: empty "colour" cell, which step "clip" reads (steps[1].input.prompt); fill it in, or list the column under the table\'s optional:',
      'products.csv:7: "sku" "TIN-06" is also row 3\'s; each row\'s sku must be unique',
    ]);
  });

  it('lets the columns listed as optional be empty, and checks that they are columns', async () => {
    const table = PRODUCTS.replace('Vanilla', '');
    const spec = SPEC().replace(
      'products: products.csv',
      'products: { file: products.csv, optional: [headline, notes] }',
    );
    expect(await problemsOf(spec, { 'products.csv': table, ...PHOTOS })).toEqual([
      'campaign.yaml:4:56: no column "notes" in products.csv (sku, name, colour, headline, photo)',
    ]);
    const plan = await planOk(spec.replace(', notes]', ']'), { 'products.csv': table, ...PHOTOS });
    const candle = plan.jobs.find((job) => job.name === 'still-cnd-05-1-1');
    expect(candle?.input.prompt).toBe('Crème brûlée candle in cream: ');
  });

  it("reports a row's missing picture in the table", async () => {
    const table = PRODUCTS.replace('candle.png', 'gone.png');
    const problems = await problemsOf(SPEC(), { 'products.csv': table, ...PHOTOS });
    expect(problems).toEqual([
      expect.stringMatching(/^products\.csv:3: row 2: image file "gone\.png" not found/),
    ]);
    const outside = PRODUCTS.replace('candle.png', '../candle.png');
    expect(await problemsOf(SPEC(), { 'products.csv': outside, ...PHOTOS })).toEqual([
      expect.stringMatching(
        /^products\.csv:3: row 2: image file "\.\.\/candle\.png" is outside the spec's folder .*--allow-input-root/,
      ),
    ]);
  });

  it('refuses a missing table, an unknown table, a row without for_each and a step reading no cell', async () => {
    expect(await problemsOf(SPEC('nowhere.csv'), PHOTOS)).toEqual([
      expect.stringMatching(/^campaign\.yaml:4:13: table file "nowhere\.csv" not found/),
    ]);
    const spec = `version: 1
campaign: feed
data: { products: products.csv }
steps:
  - id: a
    model: I2
    for_each: prodcts
    input: { prompt: "{{row.name}}" }
  - id: b
    model: I2
    input: { prompt: "{{row.name}}" }
  - id: c
    model: I2
    for_each: products
    input: { prompt: "the same every time" }
`;
    expect(await problemsOf(spec, { 'products.csv': PRODUCTS })).toEqual([
      'campaign.yaml:7:15: for_each: "prodcts" is not a table (did you mean "products"?); tables: products',
      'campaign.yaml:11:23: {{row.name}} reads a row, but step "b" makes no job per row: add for_each: <table> to it (or to a step it follows)',
      'campaign.yaml:14:15: step "c" makes a job per row of products.csv but its input reads no cell ({{row.<column>}}): every row would make the same job, paid 3 times',
    ]);
  });
});
