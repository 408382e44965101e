/**
 * report.html: the review page's read-only twin, every step as a contact sheet, written into the
 * output folder so its links to the outputs are relative and it works from file:// offline. In S3
 * mode it is an object at the campaign's prefix, beside the outputs, so the same relative links
 * work when it is opened from the bucket or from a download of the prefix.
 */
import { constants } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isS3Url, openStore, type Store } from '../store/index.ts';
import { buildModel, type CampaignModel, type ModelSources } from './model.ts';
import { renderPage } from './page.ts';

export const REPORT_FILE = 'report.html';

/** A manifest path as a relative URL: each segment encoded, so spaces and `#` survive. */
export function relativeUrl(file: string): string {
  return file.split('/').map(encodeURIComponent).join('/');
}

/** `file`: a path, or the object's s3:// URL. */
export async function writeReport(
  sources: ModelSources,
  now = new Date(),
  storeOf: (location: string) => Store = openStore,
): Promise<{ file: string; model: CampaignModel }> {
  const model = buildModel(sources);
  const html = renderPage(model, { mode: 'report', layout: null, fileUrl: relativeUrl, now });
  const { outputDir } = sources.plan;
  if (isS3Url(outputDir)) {
    // One PUT replaces the object whole: a reader never sees half a report.
    await storeOf(outputDir).put(REPORT_FILE, html, { contentType: 'text/html; charset=utf-8' });
    return { file: `${outputDir.replace(/\/+$/, '')}/${REPORT_FILE}`, model };
  }
  const file = join(outputDir, REPORT_FILE);
  // Written whole or not at all: a browser showing the old report never sees half a new one.
  await mkdir(outputDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  // Never through a link (a temporary name is easy to guess): the report stays in the output folder.
  const { O_CREAT, O_NOFOLLOW, O_TRUNC, O_WRONLY } = constants;
  await writeFile(temporary, html, { flag: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW });
  await rename(temporary, file);
  return { file, model };
}
