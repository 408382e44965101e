/**
 * Spec loading and expansion at scale: a generated 100,000-job spec is loaded, validated,
 * expanded, keyed and priced by planCampaign. Goals (issue 3): under 2 s and under 300 MB.
 * Run: `npx tsx bench/plan-expansion.ts` (writes bench/results/plan-expansion.json).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatUsd } from '../api/money.ts';
import { planCampaign } from '../plan/index.ts';

const range = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => `"${prefix} ${i}"`).join(', ');

// 50 subjects × 50 styles × 8 lights × 5 ratios = 100,000 I4 jobs, each prompt distinct.
const SPEC = `version: 1
campaign: bench-100k
budget: { max_usd: 5000 }
vars: { brand: Acme }
steps:
  - id: sweep
    model: I4
    matrix:
      subject: [${range(50, 'subject')}]
      style: [${range(50, 'style')}]
      light: [${range(8, 'light')}]
      ratio: ["4:3", "3:4", "16:9", "9:16", "1:1"]
    input:
      prompt: "{{brand}} {{subject}} in {{style}} style under {{light}}"
      aspect_ratio: "{{ratio}}"
`;

const dir = mkdtempSync(path.join(tmpdir(), 'mediaflow-bench-'));
const file = path.join(dir, 'campaign.yaml');
writeFileSync(file, SPEC);
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const result = await planCampaign(file);
const seconds = (performance.now() - started) / 1000;
const memory = process.memoryUsage();
rmSync(dir, { recursive: true, force: true });
if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('\n'));

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const report = {
  benchmark: 'plan-expansion',
  date: new Date().toISOString(),
  node: process.version,
  jobs: result.plan.jobs.length,
  total_usd: formatUsd(result.plan.totalUsd),
  seconds: Math.round(seconds * 1000) / 1000,
  rss_before_mib: mib(rssBefore),
  rss_after_mib: mib(memory.rss),
  peak_rss_mib: mib(process.resourceUsage().maxRSS * 1024),
  heap_used_mib: mib(memory.heapUsed),
  goals: { seconds: 2, peak_rss_mib: 300 },
};
const out = path.resolve(import.meta.dirname, 'results/plan-expansion.json');
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
