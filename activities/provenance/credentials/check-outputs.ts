/**
 * What `mediaflow verify` says of each file: its credential (read.ts) and whether what the manifest
 * names (campaign, job, take, prediction) is what the output folder's records say of that file.
 */
import { createHash } from 'node:crypto';
import type { DerivativeRecord } from '../../../records/derivatives.ts';
import type { ManifestEntry } from '../../../records/manifest.ts';
import { type Credential, readCredential, UNSIGNED } from './read.ts';
import { signableType } from './sdk.ts';

export interface CheckedFile extends Credential {
  readonly file: string;
  /** `matches`, what differs from the record, or that no record lists the file. */
  readonly records: string;
}

/** What the records say of a file: a job's output, or a derivative made from one. */
export type FileRecord =
  | { readonly kind: 'output'; readonly entry: ManifestEntry }
  | { readonly kind: 'derivative'; readonly record: DerivativeRecord };

/** `bytes` are the file's, named `file`; `recorded` is its record (null: none lists it). */
export async function checkFile(
  file: string,
  bytes: Buffer,
  recorded: FileRecord | null,
  trustAnchors?: string,
): Promise<CheckedFile> {
  const format = signableType(file);
  const credential = format ? await readCredential(bytes, format, trustAnchors) : UNSIGNED;
  const records =
    recorded?.kind === 'derivative'
      ? derivativeVerdict(credential, recorded.record, bytes)
      : recordsVerdict(credential, recorded?.entry ?? null);
  return { file, ...credential, records };
}

/** A derivative's manifest must name its record's key and parent job, over the bytes recorded. */
function derivativeVerdict(credential: Credential, record: DerivativeRecord, bytes: Buffer): string {
  if (record.state !== 'made') return `its record says it failed (${record.message})`;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const named = credential.mediaflow;
  const differs = [
    sha256 === record.sha256 ? null : `other bytes than recorded (sha256 ${sha256.slice(0, 12)})`,
    ...(credential.state === 'unsigned'
      ? []
      : named === null
        ? ['no mediaflow assertion']
        : [
            named.derived?.key === record.key
              ? null
              : `derivative ${named.derived?.key ?? 'none'} (the record: ${record.key})`,
            named.job === record.parent.key
              ? null
              : `job ${named.job} (the record's parent: ${record.parent.key})`,
          ]),
  ].filter((difference) => difference !== null);
  return differs.length === 0 ? 'matches' : `names ${differs.join(', ')}`;
}

function recordsVerdict(credential: Credential, entry: ManifestEntry | null): string {
  if (entry === null) return 'no record lists this file';
  const named = credential.mediaflow;
  if (credential.state === 'unsigned') return 'unsigned: nothing to compare';
  if (named === null) return 'its manifest has no mediaflow assertion';
  const differs = [
    named.job === entry.key ? null : `job ${named.job} (the record: ${entry.key})`,
    named.take === entry.regenerations ? null : `take ${named.take} (the record: ${entry.regenerations})`,
    named.prediction === entry.prediction_id
      ? null
      : `prediction ${named.prediction} (the record: ${entry.prediction_id})`,
    entry.provenance && named.campaign !== entry.provenance.campaign
      ? `campaign ${named.campaign} (the record: ${entry.provenance.campaign})`
      : null,
  ].filter((difference) => difference !== null);
  return differs.length === 0 ? 'matches' : `names ${differs.join(', ')}`;
}

/** A file fails verification when its manifest is invalid or names another job or take than its record. */
export function failsVerification(checked: CheckedFile): boolean {
  return checked.state === 'invalid' || checked.records.startsWith('names ');
}
