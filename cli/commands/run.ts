/**
 * `mediaflow run <spec>`: plan, preflight (price, balance, budget), start the campaign or attach
 * to the run already under way, show live progress per step, and print a summary with costs.
 * Ctrl-C detaches at once; it never cancels (that is `mediaflow cancel`).
 */

import { join, relative } from 'node:path';
import { type Command, Option } from 'commander';
import { createServiceClient } from '../../api/client/index.ts';
import { ENGINE } from '../../contract/engine.ts';
import { attach, campaignHandle, startOrAttach } from '../../control/campaign.ts';
import { campaignInputOf, nothingRunYet } from '../../control/campaign-input.ts';
import { campaignView, finalView } from '../../control/campaign-view.ts';
import { checkWorkerAccess } from '../../control/check-access.ts';
import { keyNames } from '../../control/governor.ts';
import type { Plan } from '../../plan/types.ts';
import { isS3Url } from '../../store/index.ts';
import { ATTR } from '../../telemetry/attributes.ts';
import { endTracing, tagCommand } from '../../telemetry/command-span.ts';
import { inSpan } from '../../telemetry/spans.ts';
import { campaignTotal } from '../campaign-total.ts';
import { deriveTally } from '../derive-tally.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { EXIT, exitOf } from '../exit-codes.ts';
import { answeredByRecords, answerFromRecords } from '../finished-from-records.ts';
import { command } from '../invocation.ts';
import type { LocalWorker } from '../local-worker.ts';
import { rewriteManifest } from '../manifest-upkeep.ts';
import { withNotifyEnvironment } from '../notify-environment.ts';
import { type SpecOptions, taskQueueOption, withSpecOptions } from '../options.ts';
import { stopLine } from '../outcomes.ts';
import { outputOverride } from '../output-location.ts';
import { ProgressDisplay } from '../progress-view.ts';
import { restoreLines } from '../restore-lines.ts';
import { derivedAwaitingLine, reviewWait } from '../review-wait.ts';
import { prepareRun } from '../run-preflight.ts';
import { printSummary } from '../run-summary.ts';
import { runningOn, runsOnOlderEngine } from '../running-run.ts';
import { stateDirOf } from '../state-home.ts';
import { campaignTaskQueue } from '../task-queue.ts';
import { loadPlanOrReport } from './validate.ts';

interface RunOptions extends SpecOptions {
  taskQueue?: string;
  output?: string;
  allowOverBudget?: boolean;
  worker?: boolean;
  verify?: boolean;
  weight?: string;
}

const POLL_MS = 1_000;
/** How long a finished campaign's worker may take to hand back other campaigns' activities. */
const STOP_GRACE_MS = 5_000;
/** How long the access check waits for a worker of the queue before the campaign starts anyway. */
const ACCESS_WAIT_MS = 10_000;

export function register(program: Command): void {
  withSpecOptions(program.command('run <spec>'))
    .description('Run a campaign to the last downloaded file (or attach to it if it is already running).')
    .option('--json', 'print the final summary as JSON on stdout')
    .option(
      '--output <location>',
      'where outputs, records and the plan go, instead of output.dir: a folder, or s3://bucket/prefix',
    )
    .addOption(
      taskQueueOption(
        'Temporal task queue of the workers that run it (default: mediaflow; on the embedded default, mediaflow-<campaign>)',
      ),
    )
    .option(
      '--allow-over-budget',
      'start even if the plan costs more than is left of the budget (spending still stops there)',
    )
    .addOption(
      new Option('--worker', 'run a worker in this process (the default with the embedded stack)').default(
        undefined,
      ),
    )
    .option('--no-worker', 'rely on workers running elsewhere (`mediaflow worker`)')
    .option(
      '--weight <n>',
      'this campaign’s weight in its API key’s shares (instead of the spec’s weight:, default 1): under contention shares follow weights',
    )
    .option(
      '--verify',
      're-hash every recorded file (sha256); a mismatch is fetched again or regenerated like a missing file',
    )
    .addHelpText(
      'after',
      '\nWith no TEMPORAL_ADDRESS and no MEDIAFLOW_API_URL, runs on the embedded default: a local Temporal\n' +
        'dev server (its state in .state/ of the folder mediaflow is installed in: `mediaflow stack status` shows it) and the local emulator. Exit code 0 only when every job has its file.',
    )
    .action(async (spec: string, options: RunOptions) => {
      const { code, exitNow } = await run(spec, options);
      // This process's worker may still hold activities that do not stop on request (downloads,
      // waits): after a detach, or another campaign's on a shared task queue. They are left as a
      // crash would leave them, to time out on their heartbeat and run again on the next worker,
      // and the process ends now rather than when they do.
      if (exitNow) {
        await endTracing(code);
        process.exit(code);
      }
      process.exitCode = code;
    });
}

async function run(spec: string, options: RunOptions): Promise<{ code: number; exitNow: boolean }> {
  const startedAt = Date.now();
  const loaded = await loadPlanOrReport(spec, options);
  if (!loaded) return { code: EXIT.error, exitNow: false };
  const plan = withWeight(
    withNotifyEnvironment(options.output ? { ...loaded, outputDir: outputOverride(options.output) } : loaded),
    options.weight,
  );
  const env = await openEnvironment();
  if (env.embedded) console.error(env.embedded.summary);
  const traceId = tagCommand({ [ATTR.campaign]: plan.campaign });
  if (traceId) console.error(`${plan.campaign}: trace ${traceId}`);
  const service = createServiceClient(env.service);
  let worker: LocalWorker | null = null;
  let detached = false;
  let stillWorking = false;
  // Set while the live view runs; afterwards a Ctrl-C ends the process the ordinary way.
  let onInterrupt: (() => void) | null = null;
  const display = new ProgressDisplay();
  const wantsLocalWorker = options.worker ?? env.embedded !== null;
  // Nothing is written to a local folder in S3 mode but this process's own log, in the state folder.
  const logDir = isS3Url(plan.outputDir) ? stateDirOf() : join(plan.outputDir, '.mediaflow');
  const logFile = join(logDir, 'logs', `${plan.campaign}.log`);
  // The worker's code (the SDK's native bridge, the activities) loads when it starts, after the
  // first frame: most of what `run` loaded before drawing anything.
  const startWorker = async (taskQueue: string) =>
    (await import('../local-worker.ts')).startLocalWorker(env, taskQueue, {
      logFile,
      onFirstWarning: () => display.note(`worker warnings are written to ${relative('.', logFile)}`),
      // A full disk says so in the campaign's outcome; this says why the log file is short.
      onLogLost: (code) =>
        display.note(`worker warnings cannot be written to ${relative('.', logFile)} (${code})`),
    });
  try {
    const handle = campaignHandle(env.client, plan.campaign);
    let taskQueue = await runningOn(handle);
    if (taskQueue === null) {
      const prepared = await prepareRun(env, service, plan, {
        verify: options.verify === true,
        allowOverBudget: options.allowOverBudget === true,
      });
      if (!prepared.ok) return { code: prepared.code, exitNow: false };
      const { ref, report } = prepared;
      // Nothing left to make and nothing running: the records answer, and no workflow walks every
      // cached job again (cli/finished-from-records.ts). After makeCurrent, so a plan an edit
      // shrank is the one export lists. An older engine's run is continued instead.
      if ((await answeredByRecords(plan, report.toRun)) && !(await runsOnOlderEngine(handle))) {
        return { code: await answerFromRecords(plan, startedAt, options.json === true), exitNow: false };
      }
      // The first frame at once: the worker's start and the access check take seconds, and until
      // the workflow publishes, its memo says exactly this (control/campaign.ts).
      display.update(nothingRunYet(campaignInputOf(plan, ref, report.budget.run)), false);
      // Lines from here on go above the frame, which a live terminal redraws in place.
      const say = (line: string) => display.note(line);
      // Before the run that continues it starts, so no writer of that run can meet these lines.
      if (await runsOnOlderEngine(handle)) await restoreLines(plan);
      taskQueue = campaignTaskQueue(env.embedded !== null, plan.campaign, options.taskQueue);
      // A worker of the queue must read the plan and write the output folder, or the campaign
      // would only stop at its first job: ask one (a short activity) before anything starts.
      if (wantsLocalWorker) worker = await startWorker(taskQueue);
      const access = await checkWorkerAccess(env.client, taskQueue, ref, plan.outputDir, {
        campaign: plan.campaign,
        waitMs: ACCESS_WAIT_MS,
      });
      if (!access.ok && access.outcome !== 'no_worker') {
        display.stop();
        console.error(`refusing to start: ${stopLine(access.outcome, access.message)}`);
        return { code: EXIT.error, exitNow: false };
      }
      if (!access.ok) say(`${access.message}; ${plan.campaign} waits for one`);
      // Every campaign on the key shares its limits through the key's governor (docs/engine.md),
      // and its spend caps through the key's ledger, however the URL is spelt (docs/caps.md).
      const key = keyNames(env.service.baseUrl, env.service.apiKey);
      const queue = taskQueue;
      // The workflow holds this run to what is left of the campaign's budget (cli/run-budget.ts).
      const { attached, continuedFrom } = await inSpan(
        'start or attach',
        { [ATTR.campaign]: plan.campaign },
        () => startOrAttach(env.client, plan, ref, queue, key, report.budget.run),
      );
      if (continuedFrom !== undefined)
        say(
          `${plan.campaign} was running on mediaflow engine ${continuedFrom}: continued from its records on engine ${ENGINE} (predictions in flight adopted, decisions kept, nothing paid twice).`,
        );
      if (attached) {
        say(`${plan.campaign} is already running: attaching to it.`);
        taskQueue = (await handle.describe()).taskQueue;
      }
    } else {
      await attach(env.client, plan);
      console.error(`${plan.campaign} is already running: attaching to it.`);
    }

    // Listening from here on: a Ctrl-C while the worker starts detaches too.
    const interrupted = new Promise<'detach'>((resolve) => {
      onInterrupt = () => resolve('detach');
      process.once('SIGINT', onInterrupt);
    });
    // The first frame before the worker, whose start (bundling the workflows) takes seconds.
    const first = await campaignView(env.client, handle).catch(() => null);
    if (first) display.update(first.progress, false);
    const detach = () => {
      display.stop();
      detached = true;
      worker?.abandon();
      console.error(detachLine(env, spec, plan.campaign, wantsLocalWorker));
      return { code: EXIT.detached, exitNow: true };
    };
    if (wantsLocalWorker && worker === null) {
      // The worker polls the queue the campaign is on, which an older run may have chosen.
      const starting = startWorker(taskQueue);
      // A Ctrl-C while it starts need not wait for it: the process exits with it half made, and
      // whatever its start then says is nobody's business.
      starting.catch(() => {});
      const started = await Promise.race([starting, interrupted]);
      if (started === 'detach') return detach();
      worker = started;
    }
    const finished = handle.result().then(() => 'done' as const);
    let reviewHinted = false;
    for (;;) {
      // The memo, not a query (control/campaign.ts): reading progress never asks a worker.
      const view = await campaignView(env.client, handle).catch(() => null);
      if (view && !reviewHinted && reviewWait(view.progress).awaiting > 0) {
        // Once, above the frame: where the decisions this campaign waits for are made.
        display.note(
          derivedAwaitingLine(view.progress) ??
            `outputs await review: ${command('review', plan.campaign)} opens the contact sheet`,
        );
        reviewHinted = true;
      }
      if (view) display.update(view.progress, view.paused);
      const next = await Promise.race([finished, interrupted, sleep(POLL_MS)]);
      if (next === 'detach') return detach();
      if (next === 'done') break;
    }
    const final = await finalView(handle);
    // The user's manifest.jsonl is made from the records, now they are all in: the bucket's
    // always, a folder's when it differs (a garbled line, an edit since: records/manifest-view.ts).
    // (What killed attempts left in a folder the campaign removed itself: workflows/runtime/sweep.ts.)
    await rewriteManifest(plan.outputDir);
    // The final state is the frame left on screen, never one from a second before the end.
    display.update(final.progress);
    display.stop();
    const total = await campaignTotal(plan.outputDir, plan.campaign, final.progress.spent);
    printSummary(final, plan.outputDir, total, options.json === true, await deriveTally(plan));
    if (onInterrupt) process.off('SIGINT', onInterrupt);
    // This campaign is over; work still in flight belongs to others on a shared queue.
    if (worker) stillWorking = !(await worker.stop(STOP_GRACE_MS));
    worker = null;
    const exit = exitOf(final.progress, plan.outputDir);
    if (exit.reason) console.error(`exit ${exit.code}: ${exit.reason}`);
    return { code: exit.code, exitNow: stillWorking };
  } finally {
    if (onInterrupt) process.off('SIGINT', onInterrupt);
    if (!detached && !stillWorking) await worker?.stop();
    await service.close();
    // The embedded stack is a service: it outlives this run, finished or detached (worker/embedded.ts).
    await env.close();
  }
}

/** One line, over the ^C the terminal echoed: what became of the campaign and how to get back. */
function detachLine(env: Environment, spec: string, campaign: string, hadWorker: boolean): string {
  const clear = process.stderr.isTTY ? '\r\x1b[2K' : '\n';
  // On the embedded default the campaign's task queue is its own: nothing runs it until `run`.
  const what = !hadWorker
    ? `${campaign} goes on with its workers`
    : env.embedded
      ? `worker stopped, ${campaign} paused`
      : `worker stopped, ${campaign} left to other workers`;
  return `${clear}Detached: ${what} (not canceled); reattach: ${command('run', spec)}`;
}

function sleep(ms: number): Promise<'tick'> {
  return new Promise((resolve) => setTimeout(() => resolve('tick'), ms));
}

/** `--weight` over the spec's `weight:`: a positive number, or a mistake said in one line. */
function withWeight(plan: Plan, weight: string | undefined): Plan {
  if (weight === undefined) return plan;
  const n = Number(weight);
  if (!Number.isFinite(n) || n <= 0 || n > 1000)
    throw new UserError(`--weight ${weight}: must be a number above 0, at most 1000`, 'e.g. --weight 3');
  return { ...plan, weight: n };
}
