/**
 * `mediaflow` as a user types it: a child process of bin/mediaflow.js, in a folder of the test's
 * own, with an environment the test controls. The inherited npm and DEBUG variables are dropped
 * (vitest runs under npx, which sets npm_*), since they change how hints and errors read.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal.ts';

export const BIN = fileURLToPath(new URL('../../bin/mediaflow.js', import.meta.url));
const exec = promisify(execFile);

export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Dropped: npm's, DEBUG, Temporal's and mediaflow's variables, but the suite's prebuilt workflow
 * bundle and TEMPORAL_DEBUG (workflows on the worker's own thread, test/global-setup.ts): a command's
 * workflow threads cost it 1.5 of its 3.9 CPU-seconds for a three-job `run`.
 */
const DROPPED = /^(npm_|DEBUG$|TEMPORAL_(?!DEBUG$)|MEDIAFLOW_(?!WORKFLOW_BUNDLE$))/;

/** process.env without npm's, DEBUG, Temporal's and mediaflow's variables, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !DROPPED.test(name));
  return { ...Object.fromEntries(kept), ...extra };
}

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'mediaflow-cli-'));
}

export async function writeSpec(dir: string, text: string, name = 'spec.yaml'): Promise<string> {
  await writeFile(join(dir, name), text);
  return name;
}

/**
 * The embedded stack's state in the test's own folder unless the test says where: its default home
 * is the checkout's `.state/` (cli/state-home.ts), which a test must never start or stop.
 * And on the suite's shared Temporal, a task queue of the folder's own unless the test names one:
 * the tests are teams sharing a namespace, each with a service of its own (MEDIAFLOW_TASK_QUEUE),
 * so one test's worker never runs another's campaign against the wrong emulator.
 */
export function withOwnState(cwd: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const state = env.MEDIAFLOW_STATE_DIR ? {} : { MEDIAFLOW_STATE_DIR: join(cwd, '.state') };
  const queue =
    env.TEMPORAL_ADDRESS && !env.MEDIAFLOW_TASK_QUEUE
      ? { MEDIAFLOW_TASK_QUEUE: `test-${createHash('sha256').update(cwd).digest('hex').slice(0, 12)}` }
      : {};
  return { ...env, ...state, ...queue };
}

/** Runs `script` (bin/mediaflow.js by default, or a link to it) with node; never rejects. */
export function mediaflow(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; script?: string },
): Promise<Outcome> {
  return exec(process.execPath, [options.script ?? BIN, ...args], {
    cwd: options.cwd,
    env: withOwnState(options.cwd, options.env),
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Outcome) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** The lines a process wrote, without the final newline. */
export function lines(text: string): string[] {
  return text.trimEnd().split('\n');
}

/** Three I4 stills ($0.03 each): $0.09 in all. CAMPAIGN is replaced by the test's own name. */
export const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 1 }
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { color: [red, green, blue] }
    input: { prompt: "A {{color}} mug on oak" }
`;

/**
 * SPEC under a campaign name of its own (`prefix` and a unique tail), in a folder of its own, and
 * `run(...args)` typing mediaflow there against the suite's Temporal and an emulator of its own
 * that answers at once (`extraEnv`: an S3 server's settings, say).
 */
export async function specOnSuiteStack(prefix: string, extraEnv: Record<string, string> = {}) {
  const emulator = await startEmulator({ port: 0, timeScale: 0 });
  onTestFinished(() => emulator.close());
  const dir = await tempDir();
  const campaign = uniqueTaskQueue(prefix);
  const spec = SPEC.replace('CAMPAIGN', campaign);
  await writeSpec(dir, spec);
  const env = cleanEnv({
    TEMPORAL_ADDRESS: temporalAddress(),
    MEDIAFLOW_API_URL: emulator.baseUrl,
    MEDIAFLOW_API_KEY: emulator.apiKey,
    ...extraEnv,
  });
  const run = (...args: string[]) => mediaflow(args, { cwd: dir, env });
  return { emulator, dir, campaign, spec, run };
}
