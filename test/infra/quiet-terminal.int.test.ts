/**
 * Nothing but mediaflow's own lines reaches the user's terminal: on the embedded default,
 * `approve` and `reject` carry a worker of the campaign's queue (and the rate governors'), whose
 * SDK warned "No activities registered…" on stderr after every decision, and whose native core
 * prints to the console unless told otherwise; `stack stop` ends the stack those workers talk to.
 * Their warnings belong in the worker's log file (cli/local-worker.ts).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, lines, tempDir } from '../cli/helpers.ts';
import { stackCli, stackStateDir, until } from './embedded-helpers.ts';

const stateDir = await stackStateDir();

const SPEC = `
version: 1
campaign: quiet
budget: { max_usd: 5 }
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { color: [red, green] }
    input: { prompt: "A {{color}} mug" }
    review: { timeout: 72h, on_timeout: reject }
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit", start_image: "{{from.output}}" }
`;

/** Lines no mediaflow command writes: the SDK's logger, its native core's, gRPC's. */
const FOREIGN =
  /\[(WARN|ERROR|INFO)\]|\bWARN\b|No activities registered|temporalio|grpc|^\S*\d{4}-\d\d-\d\dT/i;

function foreignLines(stderr: string): string[] {
  return lines(stderr).filter((line) => FOREIGN.test(line));
}

describe('the terminal', () => {
  it('shows only mediaflow lines after approve, reject and stack stop', async () => {
    const cwd = await tempDir();
    await writeFile(join(cwd, 'spec.yaml'), SPEC);
    // `run` as in a terminal, detached with Ctrl-C once the stills await review.
    const run = spawn(process.execPath, [BIN, 'run', 'spec.yaml'], {
      cwd,
      env: cleanEnv({ MEDIAFLOW_STATE_DIR: stateDir }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let runErr = '';
    run.stderr.on('data', (chunk: Buffer) => {
      runErr += chunk.toString();
    });
    const exited = new Promise((resolve) => run.once('exit', resolve));
    await until(() => runErr.includes('outputs await review'), 120_000);
    run.kill('SIGINT');
    await exited;
    expect(foreignLines(runErr)).toEqual([]);

    const approve = await stackCli(stateDir, ['approve', 'quiet', 'still-red'], cwd);
    expect(approve.stdout).toContain('approve: 1 (still-red)');
    expect(approve.code).toBe(0);
    expect(foreignLines(approve.stderr)).toEqual([]);
    const reject = await stackCli(stateDir, ['reject', 'quiet', 'still-green'], cwd);
    expect(reject.stdout).toContain('reject: 1 (still-green)');
    expect(reject.code).toBe(0);
    expect(foreignLines(reject.stderr)).toEqual([]);

    const stop = await stackCli(stateDir, ['stack', 'stop', '--force'], cwd);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('embedded stack stopped');
    expect(stop.stderr).toBe('');
  }, 300_000);
});
