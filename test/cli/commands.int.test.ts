/**
 * The command table (cli/commands/index.ts): `mediaflow <command>` loads only that command's
 * module, so the table must name every command each module registers, and help must still list
 * them all.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../cli/commands/index.ts';
import { cleanEnv, mediaflow, tempDir } from './helpers.ts';

const ALL = COMMANDS.flatMap((entry) => entry.names);

describe('the command table', () => {
  it.each(COMMANDS.map((entry) => [entry.names.join(', '), entry] as const))(
    'the module of %s registers exactly those commands',
    async (_names, entry) => {
      const program = new Command();
      (await entry.load()).register(program);
      expect(program.commands.map((command) => command.name()).sort()).toEqual([...entry.names].sort());
    },
  );

  it.each([
    [['worker', '--task-queue', 'q'], ['worker']],
    [
      ['reject', 'c', 'job'],
      ['approve', 'reject', 'regenerate'],
    ],
    [['--help'], ALL],
    [['help', 'worker'], ALL],
    [['wroker'], ALL],
    [[], ALL],
  ])('%j registers %j', (args, names) => {
    expect(commandsFor(args).flatMap((entry) => entry.names)).toEqual(names);
  });

  it('--help lists every command, and a command loaded alone answers its own --help', async () => {
    const cwd = await tempDir();
    const env = cleanEnv();
    const help = await mediaflow(['--help'], { cwd, env });
    expect(help.code).toBe(0);
    for (const name of ALL) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const worker = await mediaflow(['worker', '--help'], { cwd, env });
    expect(worker.code).toBe(0);
    expect(worker.stdout).toContain('--max-activities <n>');
  }, 60_000);

  it('runs on a Node without type stripping (before 22.18) through tsx', async () => {
    const cwd = await tempDir();
    const env = cleanEnv({ NODE_OPTIONS: '--no-experimental-strip-types' });
    const worker = await mediaflow(['worker', '--help'], { cwd, env });
    expect(worker.stderr).toBe('');
    expect(worker.code).toBe(0);
    expect(worker.stdout).toContain('--max-activities <n>');
  }, 60_000);
});
