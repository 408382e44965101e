/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * report.html opened from file:// in Chromium: offline (no request leaves the folder), its
 * pictures and videos load through relative links, every step is there with its costs, the
 * failures with their reasons, the decisions.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMp4 } from '../../emulator/media/outputs.ts';
import { renderPicture } from '../../emulator/media/picture.ts';
import { renderPng } from '../../emulator/media/png.ts';
import { pictureToRgb } from '../../emulator/media/still.ts';
import type { Plan } from '../../plan/types.ts';
import type { ManifestEntry } from '../../records/manifest.ts';
import { writeReport } from '../../review/report.ts';
import { decided, latest, running, saved, stillsAndClips } from '../helpers/review-fixtures.ts';
import { ARTIFACTS, type Browser, launchBrowser } from './browser.ts';

let browser: Browser;
let report: string;
let plan: Plan;

beforeAll(async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'report test '));
  const base = stillsAndClips();
  // A name with a space and a `#`: the links must encode them to reach the files.
  const jobs = base.jobs.map((job) =>
    job.name === 'still-shoe-white' ? { ...job, name: 'still-shoe white #1' } : job,
  );
  plan = { ...base, outputDir, jobs };
  const [s1, c1, s2, c2, s3] = plan.jobs;
  const entries: ManifestEntry[] = [];
  for (const job of [s1!, s2!, s3!, c1!]) {
    const entry = saved(job);
    await mkdir(join(outputDir, job.step), { recursive: true });
    const bytes =
      job.step === 'clip'
        ? renderMp4(pictureToRgb(renderPicture('orbit', 1, { width: 320, height: 180 })), 180, 1)
        : renderPng(String(job.input.prompt), 1, { width: 320, height: 180 });
    await writeFile(join(outputDir, entry.file), bytes);
    entries.push(entry);
  }
  const progress = {
    ...running(plan, 1_300_000),
    outcome: 'completed' as const,
    recentFailures: [{ job: c2!.name, step: 'clip', message: 'the service said: content policy' }],
  };
  ({ file: report } = await writeReport({
    plan,
    reviewedSteps: new Set(['still']),
    entries: new Map(entries.map((entry) => [entry.key, entry])),
    decisions: latest([decided(s1!, 'approve'), decided(s2!, 'approve'), decided(s3!, 'reject')]),
    progress,
  }));
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe('report.html', () => {
  it('opens from file:// with every picture and video loaded and nothing fetched from elsewhere', async () => {
    const page = await browser.context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(report).href);
    await page.waitForLoadState('load');
    await page.waitForFunction(() => [...document.images].every((img) => img.complete));
    const images = await page.$$eval('.thumb img', (imgs) =>
      imgs.map((img) => ({ src: img.getAttribute('src'), width: (img as HTMLImageElement).naturalWidth })),
    );
    // Two stills as pictures; the approved one with a video shows it, the still as its poster.
    expect(images).toEqual([
      { src: 'still/still-shoe-marble.png', width: 320 },
      { src: 'still/still-bag-white.png', width: 320 },
    ]);
    const video = page.locator('section[data-step="still"] .thumb video');
    const poster = await video.getAttribute('poster');
    expect(poster).toBe('still/still-shoe%20white%20%231.png');
    const posterWidth = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return img.naturalWidth;
    }, poster!);
    expect(posterWidth).toBe(320);
    await video.evaluate((el: HTMLVideoElement) => {
      el.preload = 'auto';
      el.load();
    });
    await expect.poll(() => video.evaluate((el: HTMLVideoElement) => el.readyState)).toBeGreaterThan(0);
    // The clip's own card shows the still it was made from as its poster, and plays.
    const clip = page.locator('section[data-step="clip"] .thumb video');
    expect(await clip.getAttribute('poster')).toBe(poster);
    await clip.evaluate((el: HTMLVideoElement) => el.play());
    await expect.poll(() => clip.evaluate((el: HTMLVideoElement) => el.currentTime)).toBeGreaterThan(0.3);
    expect(await clip.evaluate((el: HTMLVideoElement) => el.error)).toBeNull();
    expect(requests.every((url) => url.startsWith('file://'))).toBe(true);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: fileURLToPath(new URL('report.png', ARTIFACTS)) });
  });

  it('shows every step with its cost, the decisions and the failures with their reasons', async () => {
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(report).href);
    const steps = page.locator('section.step');
    await expect.poll(() => steps.count()).toBe(2);
    await expect
      .poll(() => steps.nth(0).locator('.stepcost').textContent())
      .toBe('planned $0.40 · spent $0.30');
    await expect
      .poll(() => steps.nth(1).locator('.stepcost').textContent())
      .toBe('planned $4.00 · spent $1.00');
    expect(await page.locator('.failures').textContent()).toContain(
      'clip-shoe-marble (clip): the service said: content policy',
    );
    const states = await page.$$eval('section.step[data-step="still"] .item', (items) =>
      items.map((item) => (item as HTMLElement).dataset.state),
    );
    expect(states).toEqual(['approved', 'approved', 'rejected', 'failed']);
    // Moving to a picture shows its prompt and decision beside the sheet.
    await page.keyboard.press('ArrowRight');
    const detail = await page.locator('#detail').textContent();
    expect(detail).toContain('prompt 3');
    expect(detail).toContain('approve (take 0)');
    // Read-only: the decision keys do nothing.
    await page.keyboard.press('r');
    expect(await page.locator('#status').textContent()).toBe('');
  });
});
