/**
 * The example campaigns in specs/ plan to the job counts and prices worked out by hand from
 * service-spec.md part 8.3 (the arithmetic is written beside each case).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../api/money.ts';
import { type Plan, planCampaign } from '../../plan/index.ts';

const specsDir = path.resolve(import.meta.dirname, '../../specs');

async function plan(name: string): Promise<Plan> {
  const result = await planCampaign(path.join(specsDir, name));
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.plan;
}

function countsByStep(plan: Plan): Record<string, number> {
  return Object.fromEntries(plan.steps.map((step) => [step.id, step.jobCount]));
}

describe('example specs', () => {
  it('product-launch: 10 hero stills and 20 teasers for $10.20', async () => {
    const launch = await plan('product-launch.yaml');
    // hero: 3 products × 2 backgrounds − 1 excluded (watch on marble) = 5 combinations × repeat 2 = 10
    //       I1 at $0.12 each: 10 × 0.12 = $1.20
    // teaser: one per hero job × 2 modes = 20 V4 jobs of 5 s:
    //       standard 10 × 5 s × $0.05 = $2.50; pro 10 × 5 s × $0.13 = $6.50
    // total: 1.20 + 2.50 + 6.50 = $10.20
    expect(countsByStep(launch)).toEqual({ hero: 10, teaser: 20 });
    expect(formatUsd(launch.totalUsd)).toBe('10.20');
    expect(launch.budget).toBe(40_000_000);
    expect(launch.unpricedJobs).toBe(0);
  });

  it('aspect-sweep: every image model at each of its aspect ratios, 44 jobs for $4.44', async () => {
    const sweep = await plan('aspect-sweep.yaml');
    // 2 subjects each: I1 3 ratios → 6 × $0.12 = $0.72; I2 8 ratios → 16 × $0.05 = $0.80;
    // I3 5 ratios → 10 × $0.25 = $2.50; I4 5 ratios → 10 × $0.03 = $0.30; I5 no ratio → 2 × $0.06 = $0.12
    // jobs: 6 + 16 + 10 + 10 + 2 = 44; total: 0.72 + 0.80 + 2.50 + 0.30 + 0.12 = $4.44
    expect(countsByStep(sweep)).toEqual({ i1: 6, i2: 16, i3: 10, i4: 10, i5: 2 });
    expect(formatUsd(sweep.totalUsd)).toBe('4.44');
  });

  it('video-shootout: one scene across V1–V6 from the same stills, $10.96 plus 2 V5 jobs', async () => {
    const shootout = await plan('video-shootout.yaml');
    // still: 2 looks × I1 $0.12 = $0.24
    // per still: V1 5 s at 1080p × $0.23 = $1.15; V2 8 s with audio × $0.22 = $1.76;
    //            V3 8 s × $0.15 = $1.20; V4 pro 5 s × $0.13 = $0.65; V5 not published; V6 fixed $0.60
    // total: 0.24 + 2 × (1.15 + 1.76 + 1.20 + 0.65 + 0.60) = 0.24 + 2 × 5.36 = $10.96; 2 V5 jobs unpriced
    expect(countsByStep(shootout)).toEqual({ still: 2, v1: 2, v2: 2, v3: 2, v4: 2, v5: 2, v6: 2 });
    expect(formatUsd(shootout.totalUsd)).toBe('10.96');
    expect(shootout.unpricedJobs).toBe(2);
  });

  it('review-launch: 12 reviewed stills for $1.44, worst case $9.24 with every video', async () => {
    const launch = await plan('review-launch.yaml');
    // still: 3 products × 4 takes = 12 × I1 $0.12 = $1.44, each reviewed (72 h, then reject)
    // clip: one V4 pro 5 s per approved still, 12 × 5 s × $0.13 = $7.80 at most: $9.24 in all
    expect(countsByStep(launch)).toEqual({ still: 12, clip: 12 });
    expect(formatUsd(launch.totalUsd)).toBe('9.24');
    expect(launch.steps[0]!.review).toEqual({
      timeoutMs: 72 * 3_600_000,
      onTimeout: 'reject',
      editPrompt: true,
    });
    expect(launch.steps[1]!.review).toBeUndefined();
  });

  it('catalogue-5k: 4,875 packshots for $146.25', async () => {
    const catalogue = await plan('catalogue-5k.yaml');
    // 25 products × 8 colours × 5 angles × 5 backgrounds = 5,000;
    // exclude gold on concrete: 25 products × 5 angles = 125 → 4,875 jobs × I4 $0.03 = $146.25
    expect(catalogue.jobs).toHaveLength(4875);
    expect(formatUsd(catalogue.totalUsd)).toBe('146.25');
  });

  it('catalogue: 10 products from a CSV feed, 20 stills and 20 clips for $7.40, named by sku', async () => {
    const catalogue = await plan('catalogue.yaml');
    // still: 10 rows × 2 aspect ratios = 20 × I1 $0.12 = $2.40
    // clip: one V4 standard 5 s per still, 20 × 5 s × $0.05 = $5.00; total $7.40
    expect(countsByStep(catalogue)).toEqual({ still: 20, clip: 20 });
    expect(formatUsd(catalogue.totalUsd)).toBe('7.40');
    const stills = catalogue.jobs.filter((job) => job.step === 'still');
    expect(stills[0]).toMatchObject({ name: 'still-tee-01-1-1', file: 'TEE-01/1-1' });
    // The quoted comma stays inside its cell; accents and Japanese come through as written.
    expect(stills[0]!.input.prompt).toBe(
      'Classic tee in mint, studio product photo, headline: Soft, breathable, everyday',
    );
    expect(stills.map((job) => job.input.prompt)).toContain(
      'Crème brûlée candle in cream, studio product photo, headline: Vanilla, caramel, calm',
    );
    expect(stills.map((job) => job.input.prompt)).toContain(
      '抹茶の缶 matcha tin in sage, studio product photo, headline: 静かな朝に',
    );
    // Each still starts from its row's reference photo; each clip reads its still's row.
    expect(Object.keys(stills[0]!.files ?? {})).toEqual([path.join(specsDir, 'catalogue/photos/tee-01.png')]);
    const clip = catalogue.jobs.find((job) => job.step === 'clip' && job.parent === stills[0]!.key);
    expect(clip?.input.prompt).toBe('Slow orbit around the mint Classic tee');
  });

  it('every example points editors at the JSON Schema', () => {
    const examples = readdirSync(specsDir).filter((name) => name.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const name of examples) {
      expect(readFileSync(path.join(specsDir, name), 'utf8').split('\n')[0]).toBe(
        '# yaml-language-server: $schema=./campaign.schema.json',
      );
    }
  });
});
