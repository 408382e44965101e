/**
 * `mediaflow run` in a real terminal (tmux, 80x24) against the suite's Temporal and an emulator
 * in this process: the live view fits, its last frame is the final state, and Ctrl-C detaches
 * at once in one line even while this process's worker holds a download.
 */
import { randomUUID } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.ts';
import { temporalAddress, temporalClient } from '../helpers/temporal.ts';
import { BIN, cleanEnv, tempDir, writeSpec } from './helpers.ts';
import { openTerminal } from './tmux.ts';

/** Stills and a teaser made from each: $0.84. Short names, as a person would give. */
const SPEC = `
version: 1
campaign: CAMPAIGN
budget: { max_usd: 2 }
output: { dir: OUT }
steps:
  - id: still
    model: I4
    matrix: { color: [red, green, blue] }
    input: { prompt: "A {{color}} mug on oak" }
  - id: teaser
    model: V4
    from: still
    input: { prompt: "Slow orbit", start_image: "{{from.output}}", mode: standard, duration: "5" }
`;

describe('mediaflow run in a terminal', () => {
  it('draws within 80 columns, ends on the final frame, and detaches at once on Ctrl-C', async () => {
    const emulator = await startEmulator({ port: 0, timeScale: 0 });
    onTestFinished(() => emulator.close());
    const cwd = await tempDir();
    // A short command line, so the shell's echo of it does not wrap either.
    await writeFile(join(cwd, 'mf'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(cwd, 'mf'), 0o755);
    const [fast, slow] = ['a', 'b'].map((name) => `t${name}-${randomUUID().slice(0, 8)}`) as [string, string];
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', fast).replace('OUT', 'out-a'), 'a.yaml');
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', slow).replace('OUT', 'out-b'), 'b.yaml');
    const terminal = await openTerminal(
      cwd,
      cleanEnv({
        TEMPORAL_ADDRESS: temporalAddress(),
        MEDIAFLOW_API_URL: emulator.baseUrl,
        MEDIAFLOW_API_KEY: emulator.apiKey,
      }),
    );

    await terminal.type('./mf run a.yaml --worker; echo "exit=$?"');
    await terminal.waitFor(/^exit=\d+$/, 90_000);
    const screen = await terminal.lines();
    for (const line of screen) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(screen).toContain('exit=0');
    // One frame, redrawn in place: every bar in it full, money and "finished" below them.
    const bars = screen.filter((line) => /^(still|teaser)\s+\[/.test(line));
    expect(bars).toHaveLength(2);
    for (const bar of bars) expect(bar).toMatch(/\[█+\] 3\/3 run(ning)? 0\s+wait(ing)? 0\s+fail(ed)? 0/);
    expect(screen).toContain('spent $0.84 + $0.00 committed, budget $2.00 · 6/6 done · finished');
    expect(screen.findIndex((line) => line.endsWith('· finished'))).toBeLessThan(
      screen.findIndex((line) => line.startsWith('Completed in ')),
    );

    // The second campaign's downloads take a minute: Ctrl-C must not wait for them.
    emulator.setFaults({ slowDownloadMs: 60_000 });
    const client = await temporalClient();
    onTestFinished(async () => {
      await client.workflow
        .getHandle(`mediaflow-${slow}`)
        .terminate('test over')
        .catch(() => {});
    });
    await terminal.type('clear; ./mf run b.yaml --worker; echo "exit=$?"');
    await terminal.waitFor(/^still .* run(ning)? [1-9]/, 60_000);
    const pressed = Date.now();
    await terminal.press('C-c');
    await terminal.waitFor(/^exit=130$/, 10_000);
    expect(Date.now() - pressed).toBeLessThan(5_000);
    const after = (await terminal.lines()).filter((line) => line !== '');
    const detach = after.findIndex((line) => line.startsWith('Detached'));
    expect(after[detach]).toMatch(
      new RegExp(`^Detached: worker stopped, ${slow} left to other workers \\(not canceled\\); reattach: `),
    );
    expect(after.slice(detach + 1)).toEqual(['exit=130', '$']);
  }, 180_000);
});
