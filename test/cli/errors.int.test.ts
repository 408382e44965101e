/**
 * The CLI's habits with mistakes a user makes: one line on stderr saying what to do, exit 1, no
 * stack trace unless DEBUG=mediaflow; and hints that name commands the way the user invoked them.
 * None of these need Temporal or a service.
 */
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BIN, cleanEnv, lines, mediaflow, SPEC, tempDir, writeSpec } from './helpers.ts';

const STACK_FRAME = /^\s+at /m;

async function inDir(extraEnv: Record<string, string> = {}) {
  const cwd = await tempDir();
  const env = cleanEnv(extraEnv);
  return { cwd, run: (...args: string[]) => mediaflow(args, { cwd, env }) };
}

describe('mediaflow habits', () => {
  it('--version prints the version in package.json', async () => {
    const { run } = await inDir();
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const { version } = z.object({ version: z.string() }).parse(JSON.parse(text));
    const result = await run('--version');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('says a directory given as a spec is a directory, in one line, for every spec command', async () => {
    const { cwd, run } = await inDir();
    await mkdir(join(cwd, 'specs'));
    await writeSpec(join(cwd, 'specs'), SPEC, 'launch.yaml');
    for (const command of ['validate', 'plan', 'estimate', 'run']) {
      const result = await run(command, 'specs');
      expect(result.code, command).toBe(1);
      expect(lines(result.stderr), command).toEqual([
        'mediaflow: specs is a directory; give a campaign YAML file; it holds specs/launch.yaml',
      ]);
      expect(result.stdout, command).toBe('');
    }
  }, 60_000);

  it('says a missing spec does not exist, in one line', async () => {
    const { run } = await inDir();
    const result = await run('validate', 'nope.yaml');
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^mediaflow: nope\.yaml does not exist; give a campaign YAML file/);
  });

  it('shows the stack trace with DEBUG=mediaflow', async () => {
    const { run } = await inDir({ DEBUG: 'mediaflow' });
    const result = await run('validate', 'nope.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('mediaflow: nope.yaml does not exist');
    expect(result.stderr).toMatch(STACK_FRAME);
    // Source-mapped to the TypeScript line that threw (bin/mediaflow.js keeps source maps for DEBUG).
    const line = Number(/cli\/spec-file\.ts:(\d+):\d+\)/.exec(result.stderr)?.[1]);
    const source = readFileSync(new URL('../../cli/spec-file.ts', import.meta.url), 'utf8').split('\n');
    expect(source[line - 1]).toContain('throw new UserError(');
  });

  it('commander errors are one line too', async () => {
    const { run } = await inDir();
    const result = await run('--versio');
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      "mediaflow: unknown option '--versio' (Did you mean --version?) (add --help for usage)",
    ]);
  });

  it('validate reports a plan over its budget with its price, exit 1', async () => {
    const { cwd, run } = await inDir();
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', 'over').replace('max_usd: 1', 'max_usd: 0.05'));
    const result = await run('validate', 'spec.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^spec\.yaml: plan costs \$0\.09, over budget\.max_usd \$0\.05; /);

    const json = await run('validate', 'spec.yaml', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      total_usd: '0.09',
      problems: [{ message: 'plan costs $0.09, over budget.max_usd $0.05' }],
    });
  });
});

describe('refusals before anything runs', () => {
  it("run --json prints an invalid spec's problems as JSON on stdout, exit 1", async () => {
    const { cwd, run } = await inDir();
    await writeSpec(cwd, SPEC.replace('CAMPAIGN', 'broken').replace('model: I4', 'model: I9'));
    const result = await run('run', 'spec.yaml', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      problems: [
        expect.objectContaining({
          file: join(cwd, 'spec.yaml'),
          line: 8,
          column: 12,
          message: expect.any(String),
        }),
      ],
    });
  });

  it('reads a local image from outside the spec folder only with --allow-input-root', async () => {
    const { cwd, run } = await inDir();
    await mkdir(join(cwd, 'project'));
    await mkdir(join(cwd, 'assets'));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
    await writeFile(join(cwd, 'assets', 'mug.png'), png);
    const spec = `version: 1
campaign: roots
steps:
  - { id: clip, model: V4, input: { prompt: spin, start_image: ../assets/mug.png } }
`;
    await writeSpec(join(cwd, 'project'), spec);
    const refused = await run('validate', 'project/spec.yaml');
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)[0]).toMatch(
      /^project\/spec\.yaml:4:64: step "clip": image file "..\/assets\/mug.png" is outside the spec's folder .*; move it there, or allow its folder with --allow-input-root .*assets$/,
    );
    const allowed = await run('validate', 'project/spec.yaml', '--allow-input-root', 'assets');
    expect(allowed).toMatchObject({ code: 0, stdout: 'ok: 1 jobs, $0.25\n' });
  });
});

describe('missing AWS settings', () => {
  const withoutAws = (extra: Record<string, string>) => ({
    ...Object.fromEntries(Object.entries(cleanEnv()).filter(([name]) => !name.startsWith('AWS_'))),
    // No profile files and no instance metadata: nothing but what the test sets.
    AWS_CONFIG_FILE: '/nonexistent',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
    AWS_EC2_METADATA_DISABLED: 'true',
    ...extra,
  });

  it.each([
    [{}, 'mediaflow: no AWS region for the s3:// location: set AWS_REGION'],
    [
      { AWS_REGION: 'eu-west-1' },
      'mediaflow: no AWS credentials for the s3:// location: set AWS_ACCESS_KEY_ID',
    ],
  ])('export to s3:// with %o says in one line which variable to set', async (extra, start) => {
    const cwd = await tempDir();
    const result = await mediaflow(['export', 'spring', '--output', 's3://bucket/spring'], {
      cwd,
      env: withoutAws(extra),
    });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr.startsWith(start)).toBe(true);
  });
});

describe('mediaflow worker on the embedded default', () => {
  it('explains in one line what to set, naming run the README way inside the repository', async () => {
    const { run } = await inDir();
    const result = await run('worker');
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^mediaflow: a worker needs a Temporal to poll: set TEMPORAL_ADDRESS/);
    expect(result.stderr).toContain('npm run mediaflow -- run <spec> carries its own worker');
  });

  it('names commands as `npm run mediaflow --` under npm run', async () => {
    const { run } = await inDir({ npm_lifecycle_event: 'mediaflow', npm_command: 'run-script' });
    expect((await run('worker')).stderr).toContain('npm run mediaflow -- run <spec>');
  });

  it('names commands as `mediaflow` through an installed bin', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'bin'));
    await symlink(BIN, join(cwd, 'bin', 'mediaflow'));
    const result = await mediaflow(['worker'], {
      cwd,
      env: cleanEnv(),
      script: join(cwd, 'bin', 'mediaflow'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('; without them, mediaflow run <spec> carries its own worker');
  });
});
