/**
 * A real terminal for CLI tests: a tmux server of the test's own (its own socket, no user
 * config), one 80x24 window running a plain bash, read back with capture-pane. scripts/
 * scripts/apt-package.sh (npm run setup) installs tmux; nothing is installed at test time.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, onTestFinished, vi } from 'vitest';
import { withOwnState } from './helpers.ts';

const exec = promisify(execFile);

export interface Terminal {
  /** Types `line` and presses Enter. */
  type(line: string): Promise<void>;
  /** Sends a key such as `C-c`. */
  press(key: string): Promise<void>;
  /** Every line the pane holds (scrollback too), wrapped rows joined back, trailing blanks cut. */
  lines(): Promise<string[]>;
  /** Waits until some line matches, and returns that line. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export async function openTerminal(cwd: string, env: NodeJS.ProcessEnv): Promise<Terminal> {
  // Missing, it is a setup problem (scripts/apt-package.sh), said as such rather than as ENOENT.
  await exec('tmux', ['-V']).catch(() => {
    throw new Error('tmux is not installed: npm run setup installs it (scripts/apt-package.sh)');
  });
  const socket = `mediaflow-test-${randomUUID()}`;
  // The server inherits this environment, and the shell in its window inherits the server's.
  const tmux = (...args: string[]) =>
    exec('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      cwd,
      env: { ...withOwnState(cwd, env), LANG: 'C.UTF-8' },
    });
  await tmux('new-session', '-d', '-x', '80', '-y', '24', '-c', cwd, 'bash --norc --noprofile -i');
  onTestFinished(async () => {
    await tmux('kill-server').catch(() => {});
  });
  const terminal: Terminal = {
    async type(line) {
      await tmux('send-keys', '-l', line);
      await tmux('send-keys', 'Enter');
    },
    async press(key) {
      await tmux('send-keys', key);
    },
    lines,
    waitFor: (pattern, timeoutMs = 60_000) =>
      vi.waitFor(
        async () => {
          const line = (await lines()).find((candidate) => pattern.test(candidate));
          if (line === undefined)
            throw new Error(`no line matches ${pattern}:\n${(await lines()).join('\n')}`);
          return line;
        },
        { timeout: timeoutMs, interval: 250 },
      ),
  };
  // Keys typed before the shell reads them would be echoed ahead of its prompt: wait for one,
  // then make it `$ ` on a clear screen, as the tests expect.
  await terminal.waitFor(/[$#]$/, 10_000);
  await terminal.type("PS1='$ '; clear");
  await vi.waitFor(async () => expect(await lines()).toEqual(['$']), { timeout: 10_000, interval: 100 });
  return terminal;

  async function lines(): Promise<string[]> {
    const { stdout } = await tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-');
    // Blank rows below the last output are the pane's height, not output.
    const rows = stdout.split('\n').map((line) => line.trimEnd());
    while (rows.length > 0 && rows.at(-1) === '') rows.pop();
    return rows;
  }
}
