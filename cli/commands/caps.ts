/**
 * `mediaflow caps set|show|clear`: spend caps across every campaign on this API key (docs/caps.md),
 * per UTC day and calendar month, optionally per model (a month's cap). Kept by the key's caps
 * ledger workflow; `show` reads its memo, so it needs no worker. `set` and `clear` wait until the
 * ledger has taken the change, starting a worker here when none answers (the embedded default
 * has no worker between runs).
 */
import type { Command } from 'commander';
import { ModelLabel } from '../../api/catalogue/models.ts';
import { formatUsd, type Micros, parseUsd } from '../../api/money.ts';
import { type Caps, capDollars, NO_CAPS } from '../../contract/caps.ts';
import { engineQueue } from '../../contract/engine.ts';
import { type CapsView, readCaps, reportUsage, sameCaps, setCaps } from '../../control/caps.ts';
import { type CapsKey, keyNames } from '../../control/governor.ts';
import { accountUsage, usageLine, usageStale } from '../caps-usage.ts';
import { type Environment, openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { type LocalWorker, startLocalWorker } from '../local-worker.ts';

/** How long `set` waits for a worker that already runs before starting one here. */
const ANSWER_WAIT_MS = 3_000;
/** How long it waits in all (starting a worker bundles the workflows: seconds on a loaded machine). */
const TAKEN_WAIT_MS = 120_000;

interface SetOptions {
  daily?: string;
  monthly?: string;
  model: string[];
}

export function register(program: Command): void {
  const caps = program
    .command('caps')
    .description('Spend caps across every campaign on this API key: per UTC day, per month, per model.');
  caps
    .command('set')
    .description('Set caps in dollars (others stay as they were): --monthly 5000 --daily 800 --model V4=2000')
    .option('--daily <usd>', 'cap per UTC day, all models')
    .option('--monthly <usd>', 'cap per calendar month (UTC), all models')
    .option('--model <label=usd>', 'cap per calendar month for one model (repeatable)', collect, [])
    .option('--json', 'print the caps as JSON')
    .action(async (options: SetOptions & { json?: boolean }) =>
      change((current) => withSet(current, options), options.json === true),
    );
  caps
    .command('clear')
    .description('Clear caps: all of them, or those named')
    .option('--daily', 'the daily cap only')
    .option('--monthly', 'the monthly cap only')
    .option('--model <label>', 'one model’s cap only (repeatable)', collect, [])
    .option('--json', 'print the caps as JSON')
    .action(async (options: { daily?: boolean; monthly?: boolean; model: string[]; json?: boolean }) =>
      change((current) => withCleared(current, options), options.json === true),
    );
  caps
    .command('show')
    .description('List the caps with what is spent and committed in their period')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const env = await openEnvironment();
      try {
        let view = await readCaps(env.client, keyOf(env));
        // A new day since the last reading: the key's real spend is read again (shown next time
        // if no worker serves the ledger now).
        if (usageStale(view)) {
          const usage = await accountUsage(env.service);
          if (usage) {
            await reportUsage(env.client, keyOf(env), usage);
            view = (await waitFor(env, (v) => !usageStale(v), 2_000)) ?? view;
          }
        }
        console.log(options.json ? JSON.stringify(jsonOf(view), null, 2) : textOf(view));
      } finally {
        await env.close();
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The key's ledger: one per API key, however the service URL is spelt (docs/caps.md). */
function keyOf(env: Environment): CapsKey {
  return keyNames(env.service.baseUrl, env.service.apiKey).caps;
}

function dollars(flag: string, text: string): Micros {
  let micros: Micros;
  try {
    micros = parseUsd(text);
  } catch {
    throw new UserError(`${flag} ${text}: not an amount of dollars`, 'e.g. --monthly 5000');
  }
  if (micros <= 0)
    throw new UserError(`${flag} ${text}: a cap must be more than $0`, 'caps clear removes one');
  return micros;
}

function modelOf(text: string): string {
  const parsed = ModelLabel.safeParse(text);
  if (!parsed.success)
    throw new UserError(`--model ${text}: no such model`, `one of ${ModelLabel.options.join(', ')}`);
  return parsed.data;
}

export function withSet(current: Caps, options: SetOptions): Caps {
  const models = { ...current.models };
  for (const pair of options.model) {
    const [label, amount] = pair.split('=');
    if (label === undefined || amount === undefined)
      throw new UserError(`--model ${pair}: expected LABEL=USD`, 'e.g. --model V4=2000');
    models[modelOf(label)] = dollars(`--model ${label}=`, amount);
  }
  if (options.daily === undefined && options.monthly === undefined && options.model.length === 0)
    throw new UserError('caps set: no cap given', 'e.g. mediaflow caps set --monthly 5000 --daily 800');
  return {
    daily: options.daily === undefined ? current.daily : dollars('--daily', options.daily),
    monthly: options.monthly === undefined ? current.monthly : dollars('--monthly', options.monthly),
    models,
  };
}

export function withCleared(
  current: Caps,
  options: { daily?: boolean; monthly?: boolean; model: string[] },
): Caps {
  if (!options.daily && !options.monthly && options.model.length === 0) return NO_CAPS;
  const models = { ...current.models };
  for (const label of options.model) delete models[modelOf(label)];
  return {
    daily: options.daily ? null : current.daily,
    monthly: options.monthly ? null : current.monthly,
    models,
  };
}

/** Sends the new caps and waits until the ledger shows them (starting a worker when none answers). */
async function change(next: (current: Caps) => Caps, json: boolean): Promise<void> {
  const env = await openEnvironment();
  let worker: LocalWorker | null = null;
  try {
    const key = keyOf(env);
    const wanted = next((await readCaps(env.client, key))?.caps ?? NO_CAPS);
    await setCaps(env.client, key, wanted);
    // What the key spent before the cap, or with other tools, counts (docs/caps.md).
    const usage = await accountUsage(env.service);
    if (usage) await reportUsage(env.client, key, usage);
    const started = Date.now();
    let view = await readCaps(env.client, key);
    while (!view || !sameCaps(view.caps, wanted) || (usage !== null && usageStale(view))) {
      const waited = Date.now() - started;
      if (waited > TAKEN_WAIT_MS)
        throw new UserError('the caps ledger did not answer', 'start a worker: mediaflow worker');
      // The embedded default runs workers only with `run`: one here serves the ledger meanwhile.
      if (!worker && waited > ANSWER_WAIT_MS && env.embedded)
        worker = await startLocalWorker(env, engineQueue('mediaflow-caps-cli'));
      await new Promise((resolve) => setTimeout(resolve, 250));
      view = await readCaps(env.client, key);
    }
    console.log(json ? JSON.stringify(jsonOf(view), null, 2) : textOf(view));
  } finally {
    await worker?.stop();
    await env.close();
  }
}

/** The ledger once `ready` holds of its memo, or null after `ms`. */
async function waitFor(
  env: Environment,
  ready: (view: CapsView) => boolean,
  ms: number,
): Promise<CapsView | null> {
  const end = Date.now() + ms;
  for (;;) {
    const view = await readCaps(env.client, keyOf(env));
    if (view && ready(view)) return view;
    if (Date.now() > end) return null;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const money = (micros: Micros) => formatUsd(micros);

function jsonOf(view: CapsView | null) {
  if (!view) return { day: null, month: null, caps: [], held: [] };
  return {
    day: view.day,
    month: view.month,
    caps: view.lines.map((l) => ({
      cap: l.cap,
      model: l.model,
      limit: money(l.limit),
      spent: money(l.spent),
      committed: money(l.committed),
    })),
    held: view.held,
    spent_from: view.usage
      ? {
          account_usage_read: new Date(view.usage.at).toISOString(),
          since_earlier_reading: view.usage.dayKnown,
        }
      : 'campaign reports',
  };
}

export function textOf(view: CapsView | null): string {
  if (!view || view.lines.length === 0) return 'no spend caps on this API key';
  const rows = view.lines.map((l) => {
    const name = `${l.cap}${l.model === null ? '' : ` ${l.model}`}`;
    const used = l.limit > 0 ? ((l.spent + l.committed) * 100) / l.limit : 0;
    return [
      name,
      capDollars(l.limit),
      `spent ${capDollars(l.spent)}`,
      `committed ${capDollars(l.committed)}`,
      `${used.toFixed(1)} %`,
    ];
  });
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map(
    (r) =>
      `  ${r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd()}`,
  );
  const held = view.held.length > 0 ? `\nheld by a cap (paused): ${view.held.map(nameOf).join(', ')}` : '';
  return `spend caps on this API key (day ${view.day}, month ${view.month} UTC):\n${lines.join('\n')}${held}\n${usageLine(view)}`;
}

/** A campaign's workflow id as its name. */
function nameOf(workflowId: string): string {
  return workflowId.replace(/^mediaflow-/, '');
}
