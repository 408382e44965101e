/**
 * Records the replay corpus (test/replay-corpus/, replayed by test/engine/replay-corpus.replay.test.ts):
 * one small real campaign of every shape the workflow meets, run on the current workflow code
 * against a real Temporal dev server and the emulator, each run's history exported with the CLI.
 * A change to workflows/ that decides differently on any of them fails CI instead of stalling the
 * campaigns in flight when the new workers take them over (ARCHITECTURE.md, decision 10).
 *
 *   npx tsx scripts/record-replay-corpus.ts [outDir] [shape ...]
 *
 * Records every shape into test/replay-corpus/ by default, replacing files of the same name.
 * Each check below reads the exported history, so a shape that did not show what it is for
 * (no heir named, no 429 met) fails the recording rather than entering the corpus quietly.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startDevServer } from '../worker/dev-server.ts';
import { exportCampaign, type RunSummary } from './replay-corpus/export.ts';
import {
  batchedFinishes,
  budgetStop,
  cancel,
  chain,
  continueAsNew,
  detachResume,
  failuresRegenerations,
  governed,
  heirs,
  rateLimited,
  reviewGates,
  sweepAtEnd,
} from './replay-corpus/recordings.ts';
import { type Campaign, connectTemporal, type Temporal } from './replay-corpus/stack.ts';

// Workers log every state change at INFO; a recording only wants to hear about problems.
Runtime.install({ logger: new DefaultLogger('WARN') });

type Check = (runs: RunSummary[]) => string | null;
const total = (runs: RunSummary[], count: (r: RunSummary) => number) =>
  runs.reduce((n, r) => n + count(r), 0);
const outcome = (runs: RunSummary[]) => runs.at(-1)?.outcome;

interface Shape {
  name: string;
  record: (t: Temporal) => Promise<Campaign>;
  /** Its own dev server's dynamic config, for shapes that need one. */
  dynamicConfig?: Record<string, number>;
  /** What the history must show; null when it does. */
  check: Check;
}

const SHAPES: Shape[] = [
  {
    name: 'chain',
    record: chain,
    check: (r) => (outcome(r) === 'completed' ? null : 'not completed'),
  },
  {
    name: 'heirs',
    record: heirs,
    // 20 jobs in 4 slots: 4 chains of 5 jobs, each naming 4 heirs.
    check: (r) => (total(r, (s) => s.heirs) === 16 ? null : `${total(r, (s) => s.heirs)} heirs, wanted 16`),
  },
  {
    name: 'batched-finishes',
    record: batchedFinishes,
    check: (r) =>
      outcome(r) === 'completed' && total(r, (s) => s.finishBatches) > 0 && total(r, (s) => s.heirs) === 0
        ? null
        : 'not completed, or no batch finished, or an heir named',
  },
  {
    name: 'continue-as-new',
    record: continueAsNew,
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 100 },
    check: (r) => (r.length >= 3 ? null : `${r.length} runs, wanted 3 or more`),
  },
  {
    name: 'cancel',
    record: cancel,
    check: (r) =>
      outcome(r) !== 'canceled' ? `outcome ${outcome(r)}` : total(r, (s) => s.heirs) > 0 ? null : 'no heir',
  },
  {
    name: 'sweep-at-end',
    record: sweepAtEnd,
    check: (r) => (r.at(-1)?.swept === 1 ? null : 'no sweep, or it did not remove the one file left'),
  },
  {
    name: 'budget-stop',
    record: budgetStop,
    check: (r) => (outcome(r) === 'budget_reached' ? null : 'no stop'),
  },
  {
    name: 'failures-regenerations',
    record: failuresRegenerations,
    check: (r) =>
      total(r, (s) => s.regenerations) > 0 && total(r, (s) => s.skipped) > 0
        ? null
        : 'no regeneration or no skipped child',
  },
  {
    name: 'detach-resume',
    record: detachResume,
    check: (r) => (total(r, (s) => s.regenerations) > 0 ? null : 'no regeneration after the 404s'),
  },
  {
    name: 'review-gates',
    record: reviewGates,
    check: (r) =>
      outcome(r) === 'completed' && total(r, (s) => s.regenerations) > 0 && total(r, (s) => s.skipped) === 3
        ? null
        : 'no retake, or not the three clips of rejected stills skipped',
  },
  {
    name: 'rate-limited',
    record: rateLimited,
    check: (r) =>
      total(r, (s) => s.retries429) > 0 && total(r, (s) => s.limitReads) > r.length
        ? null
        : 'no 429 or no re-read',
  },
  {
    name: 'governed',
    record: governed,
    check: (r) => (total(r, (s) => s.shares) >= 2 ? null : 'fewer than two shares (half, then whole)'),
  },
];

async function main(): Promise<void> {
  const [outArg, ...only] = process.argv.slice(2);
  const outDir = outArg ?? fileURLToPath(new URL('../test/replay-corpus/', import.meta.url));
  const shapes = only.length > 0 ? SHAPES.filter((s) => only.includes(s.name)) : SHAPES;
  const problems: string[] = [];
  for (const shape of shapes) {
    const server = await startDevServer(shape.dynamicConfig ? { dynamicConfig: shape.dynamicConfig } : {});
    const temporal = await connectTemporal(server.address);
    let campaign: Campaign | undefined;
    try {
      const started = Date.now();
      campaign = await shape.record(temporal);
      const runs = await exportCampaign(campaign, outDir);
      const problem = shape.check(runs);
      if (problem) problems.push(`${shape.name}: ${problem}`);
      console.log(
        `${shape.name} (${((Date.now() - started) / 1000).toFixed(1)} s)${problem ? ` FAILED: ${problem}` : ''}`,
      );
      for (const run of runs) console.log(`  ${JSON.stringify(run)}`);
    } finally {
      await campaign?.closeEmulator();
      await temporal.close();
      await server.stop();
      if (campaign) await rm(campaign.dir, { recursive: true, force: true });
    }
  }
  if (problems.length > 0)
    throw new Error(`shapes that did not show what they are for:\n${problems.join('\n')}`);
  console.log(`corpus written to ${join(outDir)}`);
}

await main();
