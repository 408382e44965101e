/**
 * `mediaflow run <spec>`: plan, preflight (price, balance, budget), start the campaign or attach
 * to the run already under way, show live progress per step, and print a summary with costs.
 * Ctrl-C detaches; it never cancels (that is `mediaflow cancel`).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { type Command, Option } from 'commander';
import { auditOutputs } from '../../activities/audit.ts';
import { downloadFile } from '../../activities/download.ts';
import { storePlan } from '../../activities/plan-store.ts';
import { createServiceClient } from '../../api/client/index.ts';
import { formatDollars } from '../../api/money.ts';
import {
  attach,
  type CampaignView,
  campaignHandle,
  campaignView,
  finalView,
  startOrAttach,
} from '../../worker/campaign-control.ts';
import { TASK_QUEUE } from '../../worker/create-worker.ts';
import { openEnvironment } from '../environment.ts';
import { command } from '../invocation.ts';
import { type LocalWorker, startLocalWorker } from '../local-worker.ts';
import { preflight } from '../preflight.ts';
import { allSucceeded, moneyAsDecimal, ProgressDisplay, summaryTable } from '../progress-view.ts';
import { loadPlanOrReport } from './validate.ts';

interface RunOptions {
  taskQueue: string;
  json?: boolean;
  allowOverBudget?: boolean;
  worker?: boolean;
  verify?: boolean;
}

const POLL_MS = 1_000;

export function register(program: Command): void {
  program
    .command('run <spec>')
    .description('Run a campaign to the last downloaded file (or attach to it if it is already running).')
    .option('--json', 'print the final summary as JSON on stdout')
    .option('--task-queue <name>', 'Temporal task queue of the workers that run it', TASK_QUEUE)
    .option(
      '--allow-over-budget',
      'start even if the plan costs more than budget.max_usd (spending still stops there)',
    )
    .addOption(
      new Option('--worker', 'run a worker in this process (the default with the embedded stack)').default(
        undefined,
      ),
    )
    .option('--no-worker', 'rely on workers running elsewhere (`mediaflow worker`)')
    .option(
      '--verify',
      're-hash every recorded file (sha256); a mismatch is fetched again or regenerated like a missing file',
    )
    .addHelpText(
      'after',
      '\nWith no TEMPORAL_ADDRESS and no MEDIAFLOW_API_URL, runs on the embedded default: a local Temporal\n' +
        'dev server (state in .state/) and the local emulator. Exit code 0 only when every job has its file.',
    )
    .action(async (spec: string, options: RunOptions) => {
      process.exitCode = await run(spec, options);
    });
}

async function run(spec: string, options: RunOptions): Promise<number> {
  const plan = await loadPlanOrReport(spec);
  if (!plan) return 1;
  const env = await openEnvironment();
  if (env.embedded) console.error(env.embedded.summary);
  const service = createServiceClient(env.service);
  let worker: LocalWorker | null = null;
  try {
    const handle = campaignHandle(env.client, plan.campaign);
    if (!(await isRunning(handle))) {
      // Recorded files that are gone (or, with --verify, changed) are restored or priced again.
      const audit = await auditOutputs(service, plan, {
        verify: options.verify === true,
        download: downloadFile,
      });
      if (audit.refetched.length > 0)
        console.error(`fetched again from their predictions: ${audit.refetched.join(', ')}`);
      if (audit.lost.length > 0)
        console.error(`output lost, to be generated again: ${audit.lost.join(', ')}`);
      const report = await preflight(service, plan);
      console.error(
        `${plan.campaign}: ${report.toRun} of ${plan.jobs.length} jobs to run, ${formatDollars(report.cost)}` +
          ` (budget ${plan.budget === null ? 'none' : formatDollars(plan.budget)}, balance ${formatDollars(report.balance)})`,
      );
      if (report.refusals.length > 0 && !options.allowOverBudget) {
        for (const refusal of report.refusals) console.error(`refusing to start: ${refusal}`);
        console.error('Raise budget.max_usd, or pass --allow-over-budget to run until the budget is spent.');
        return 1;
      }
      const ref = await storePlan(plan, report.servicePrices);
      const { attached } = await startOrAttach(env.client, plan, ref, options.taskQueue);
      if (attached) console.error(`${plan.campaign} is already running: attaching to it.`);
    } else {
      await attach(env.client, plan);
      console.error(`${plan.campaign} is already running: attaching to it.`);
    }
    if (options.worker ?? env.embedded !== null) worker = await startLocalWorker(env, options.taskQueue);

    const display = new ProgressDisplay();
    const interrupted = new Promise<'detach'>((resolve) => process.once('SIGINT', () => resolve('detach')));
    const result = handle.result();
    const finished = result.then(() => 'done' as const);
    for (;;) {
      // The memo, not a query (worker/campaign-control.ts): reading progress never asks a worker.
      const view = await campaignView(env.client, handle).catch(() => null);
      if (view) display.update(view.progress);
      const next = await Promise.race([finished, interrupted, sleep(POLL_MS)]);
      if (next === 'detach') {
        display.stop();
        console.error(
          `\nDetached; ${plan.campaign} is not canceled.` +
            (worker && env.embedded ? ' It pauses until a worker runs again.' : '') +
            `\nReattach: ${command('run', spec)}   Progress: ${command('status', plan.campaign)}` +
            `   Stop: ${command('cancel', plan.campaign)}`,
        );
        return 130;
      }
      if (next === 'done') break;
    }
    display.stop();
    const final = await finalView(handle);
    printSummary(final, plan.outputDir, options.json === true);
    return allSucceeded(final.progress) ? 0 : 1;
  } finally {
    await worker?.stop();
    await service.close();
    // The embedded stack is a service: it outlives this run, finished or detached (worker/embedded.ts).
    await env.close();
  }
}

async function isRunning(handle: ReturnType<typeof campaignHandle>): Promise<boolean> {
  try {
    return (await handle.describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

function printSummary({ progress, closedAt }: CampaignView, outputDir: string, json: boolean): void {
  if (json) {
    console.log(JSON.stringify({ ...progress, output_dir: outputDir }, moneyAsDecimal, 2));
    return;
  }
  console.log(summaryTable(progress, closedAt));
  console.log(`outputs: ${outputDir} (manifest.jsonl lists every file)`);
}

function sleep(ms: number): Promise<'tick'> {
  return new Promise((resolve) => setTimeout(() => resolve('tick'), ms));
}
