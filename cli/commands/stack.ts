/**
 * `mediaflow stack status|stop|ui`: the embedded stack as the service it is (worker/embedded.ts).
 * `status` and `stop` never start it; `ui` does, so finished campaigns can be looked at.
 */
import { resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { formatDollars, formatUsd, type Micros, parseUsd } from '../../api/money.ts';
import { workflowIdOf } from '../../control/campaign.ts';
import { runningWorkflows } from '../../control/running-campaigns.ts';
import { temporalConfigured } from '../../worker/connection.ts';
import { type EmbeddedState, inspectEmbedded, startEmbedded, stopEmbedded } from '../../worker/embedded.ts';
import { UserError } from '../errors.ts';
import { command } from '../invocation.ts';
import { jsonOutput } from '../json-output.ts';
import { openInBrowser } from '../open-browser.ts';
import { stateDirOf } from '../state-home.ts';

export function register(program: Command): void {
  const stack = program
    .command('stack')
    .description('The embedded stack (local Temporal dev server + emulator): status, stop, Web UI.');
  stack
    .command('status')
    .description('Whether it runs: addresses, pids, uptime, campaigns running on it.')
    .option('--json', 'print it as JSON')
    .action(async (options: { json?: boolean }) => status(options.json === true));
  stack
    .command('stop')
    .description('Stop it (refused while campaigns run, unless --force); nothing is lost.')
    .option('--force', 'stop even while campaigns run: they pause and resume on the next run')
    .action(async (options: { force?: boolean }) => stop(options.force === true));
  stack
    .command('ui [campaign]')
    .description("Print (and open) the Temporal Web UI's URL, starting the stack if needed.")
    .option('--no-open', 'only print the URL')
    .action(async (campaign: string | undefined, options: { open: boolean }) => ui(campaign, options.open));
}

async function status(json: boolean): Promise<void> {
  const stateDir = resolve(stateDirOf());
  const state = await inspectEmbedded(stateDir);
  if (!state?.answering) {
    if (json) process.stdout.write(jsonOutput({ running: false, stateDir }));
    else {
      const gone = state ? ' (its recorded processes are gone or do not answer)' : '';
      console.log(`embedded stack: not running${gone}; state in ${stateDir}`);
      console.log(`Any command that needs it starts it, e.g. ${command('stack', 'ui')}.`);
    }
    return;
  }
  const { temporal, emulator, startedAt } = state.record;
  const [campaigns, usage] = await Promise.all([runningOn(state), emulatorUsage(state)]);
  if (json) {
    const { apiKey: _, ...emulatorShown } = emulator; // the key stays in embedded.json
    const usageShown = usage && {
      predictions: usage.predictions,
      charged_usd: formatUsd(usage.charged),
      balance_usd: formatUsd(usage.balance),
    };
    process.stdout.write(
      jsonOutput({
        running: true,
        stateDir,
        startedAt,
        temporal,
        emulator: emulatorShown,
        campaigns,
        usage: usageShown,
      }),
    );
    return;
  }
  const uptime = startedAt ? `, up ${formatDuration(Date.now() - Date.parse(startedAt))}` : '';
  console.log(`embedded stack: running${uptime}; state in ${stateDir}`);
  console.log(
    `  Temporal  ${temporal.address}  pid ${temporal.pgid}${temporal.uiUrl ? `  UI ${temporal.uiUrl}` : ''}`,
  );
  const spent = usage
    ? `  ${usage.predictions} predictions, ${formatDollars(usage.charged)} charged, balance ${formatDollars(usage.balance)}`
    : '';
  console.log(`  emulator  ${emulator.baseUrl}  pid ${emulator.pgid}${spent}`);
  console.log(`  campaigns running: ${campaigns.length === 0 ? 'none' : campaigns.join(', ')}`);
}

async function stop(force: boolean): Promise<void> {
  const stateDir = resolve(stateDirOf());
  const state = await inspectEmbedded(stateDir);
  if (!state) {
    console.log(`embedded stack: not running; state in ${stateDir}`);
    return;
  }
  const campaigns = state.answering ? await runningOn(state) : [];
  if (campaigns.length > 0 && !force) {
    throw new UserError(
      `not stopping the embedded stack: ${campaigns.length} campaign(s) running on it (${campaigns.join(', ')})`,
      `let them finish, cancel them, or stop anyway (they pause and resume on the next run): ${command('stack', 'stop', '--force')}`,
    );
  }
  await stopEmbedded(stateDir);
  console.log(
    `embedded stack stopped (Temporal pid ${state.record.temporal.pgid}, emulator pid ${state.record.emulator.pgid}); ` +
      `its state stays in ${stateDir} and the next command that needs it starts it again.`,
  );
  if (campaigns.length > 0) {
    console.log(
      `Paused, not canceled: ${campaigns.join(', ')}. ${command('run', '<spec>')} resumes each one.`,
    );
  }
}

async function ui(campaign: string | undefined, open: boolean): Promise<void> {
  if (temporalConfigured(process.env)) {
    throw new UserError(
      'TEMPORAL_ADDRESS (or a Temporal profile) is set, so the embedded stack is not in use',
      "open your Temporal's own Web UI",
    );
  }
  const embedded = await startEmbedded({ stateDir: stateDirOf() });
  if (!embedded.attached) console.error(`${embedded.summary} Stop it with: ${command('stack', 'stop')}`);
  if (!embedded.temporalUiUrl) throw new UserError('this Temporal dev server runs without its Web UI');
  const url = campaign
    ? `${embedded.temporalUiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowIdOf(campaign))}`
    : `${embedded.temporalUiUrl}/namespaces/default/workflows`;
  console.log(url);
  if (open) openInBrowser(url);
}

/** Running work on the stack's Temporal (control/running-campaigns.ts runningWorkflows). */
async function runningOn(state: EmbeddedState): Promise<string[]> {
  const connection = await Connection.connect({
    address: state.record.temporal.address,
    connectTimeout: 2_000,
  });
  try {
    return await runningWorkflows(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

const LedgerSummary = z.object({ predictionsCreated: z.number(), creditsCharged: z.string() });
const BalanceReply = z.object({ credits: z.string() });

/** What the emulator has done since its state began; undefined if it does not say. */
async function emulatorUsage(
  state: EmbeddedState,
): Promise<{ predictions: number; charged: Micros; balance: Micros } | undefined> {
  const { baseUrl, apiKey } = state.record.emulator;
  try {
    const headers = { authorization: `Bearer ${apiKey}` };
    const signal = AbortSignal.timeout(2_000);
    const [ledger, balance] = await Promise.all([
      fetch(`${new URL(baseUrl).origin}/_emulator/ledger`, { signal }).then(async (r) =>
        LedgerSummary.parse(await r.json()),
      ),
      fetch(`${baseUrl}/account/balance`, { headers, signal }).then(async (r) =>
        BalanceReply.parse(await r.json()),
      ),
    ]);
    return {
      predictions: ledger.predictionsCreated,
      charged: parseUsd(ledger.creditsCharged),
      balance: parseUsd(balance.credits),
    };
  } catch {
    return undefined;
  }
}

function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))} s`;
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
