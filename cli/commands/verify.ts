/**
 * `mediaflow verify <file|folder|campaign>`: reads each output's C2PA manifest with the SDK that
 * signed it and says whether it is valid (else which assertion or hash failed) or unsigned, who
 * signed it and whether that signer is trusted (the anchors `--trust` gives), whether it says it
 * was generated, and whether the job, take and prediction it names are those its records name.
 * A file: the output folder around it is found by its records. A campaign: every output its
 * records list (where it was started to write, or `--output`). Exit 1 when any file fails.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  type CheckedFile,
  checkFile,
  type FileRecord,
  failsVerification,
} from '../../activities/provenance/credentials/check-outputs.ts';
import { whole } from '../../activities/provenance/credentials/whole.ts';
import { readDerivatives } from '../../records/derivatives.ts';
import { Manifest } from '../../records/manifest.ts';
import { RECORDS } from '../../store/index.ts';
import { openEnvironment } from '../environment.ts';
import { UserError } from '../errors.ts';
import { jsonOutput } from '../json-output.ts';
import { outputOverride } from '../output-location.ts';
import { outputDirOf } from './export.ts';

interface VerifyOptions {
  readonly json?: boolean;
  readonly trust?: string;
  readonly output?: string;
}

export function register(program: Command): void {
  program
    .command('verify <target>')
    .description(
      'Check the Content Credentials (C2PA) of an output file, an output folder or a campaign’s outputs.',
    )
    .option('--trust <pem>', 'trust signers whose chains end at these certificates (PEM)')
    .option(
      '--output <location>',
      'for a campaign: the output location instead of the one it was started with',
    )
    .option('--json', 'print the result as JSON')
    .action(async (target: string, options: VerifyOptions) => {
      const trust = options.trust ? await readTrust(options.trust) : undefined;
      const checked = await checkTarget(target, options, trust);
      if (options.json) process.stdout.write(jsonOutput({ files: checked }));
      else for (const file of checked) console.log(lineOf(file));
      if (checked.some(failsVerification)) process.exitCode = 1;
    });
}

async function checkTarget(target: string, options: VerifyOptions, trust?: string): Promise<CheckedFile[]> {
  if (existsSync(target) && statSync(target).isFile()) {
    const path = resolve(target);
    const folder = outputFolderOf(path);
    const file = folder ? relative(folder, path) : target;
    const recorded = folder ? ((await recordsOf(folder)).get(file) ?? null) : null;
    return [await checkFile(file, await readFile(path), recorded, trust)];
  }
  const folder = existsSync(target) ? resolve(target) : await campaignFolder(target, options);
  const manifest = await Manifest.open(folder);
  const checked: CheckedFile[] = [];
  for (const [file, recorded] of await recordsOf(folder)) {
    const body = await manifest.store.open(file);
    if (body) checked.push(await checkFile(file, await whole(body), recorded, trust));
  }
  return checked;
}

/** The folder holding `path` whose records (`.mediaflow/records/`) list outputs, or null. */
function outputFolderOf(path: string): string | null {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, RECORDS))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Each recorded output by its file (the latest record of a file wins: a lost file made again),
 * then each derivative made from one.
 */
async function recordsOf(folder: string): Promise<Map<string, FileRecord>> {
  const manifest = await Manifest.open(folder);
  const records = new Map<string, FileRecord>(
    (await manifest.recorded()).map((entry) => [entry.file, { kind: 'output', entry }]),
  );
  for (const record of await readDerivatives(manifest.store)) {
    if (record.state === 'made') records.set(record.file, { kind: 'derivative', record });
  }
  return records;
}

async function campaignFolder(campaign: string, options: VerifyOptions): Promise<string> {
  if (options.output) return outputOverride(options.output);
  const env = await openEnvironment({ service: false });
  try {
    return await outputDirOf(env, campaign);
  } finally {
    await env.close();
  }
}

async function readTrust(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UserError(
      `--trust ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      'give a PEM file of the certificates to trust (the test CA: .state/c2pa/ca.pem)',
    );
  }
}

function lineOf(checked: CheckedFile): string {
  const mark = failsVerification(checked) ? '✗' : checked.state === 'valid' ? '✓' : '-';
  if (checked.state === 'unsigned') return `${mark} ${checked.file}: unsigned (no C2PA manifest)`;
  const state =
    checked.state === 'valid' ? 'valid' : `invalid: ${checked.failures.join('; ') || 'unreadable manifest'}`;
  const signer = `signed by ${checked.signer ?? 'an unnamed signer'} (${checked.trusted ? 'trusted' : 'untrusted'})`;
  const generated = !checked.generated
    ? 'does not say generated'
    : checked.mediaflow?.derived
      ? 'says edited from generated media (compositeWithTrainedAlgorithmicMedia)'
      : 'says generated (trainedAlgorithmicMedia)';
  return `${mark} ${checked.file}: ${state}; ${signer}; ${generated}; records: ${checked.records}`;
}
