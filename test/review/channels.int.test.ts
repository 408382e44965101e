/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * A campaign with derive steps, run on the suite's Temporal dev server and a real emulator, its
 * review page and its report opened in Chromium at the window sizes people use: each derive step
 * is a channel sheet of its own, a card per file with its name, size and state, the files served
 * and shown; a still sheet of eight columns keeps its last column clear of the detail pane.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { writeReport } from '../../review/report.ts';
import { harness } from '../engine/harness.ts';
import { ARTIFACTS } from './browser.ts';
import { openCampaignPage } from './open-page.ts';

const COLOURS = ['coral', 'mint', 'lemon', 'navy', 'sage', 'cream', 'sky', 'ink'];

const SPEC = `
version: 1
campaign: channels
budget: { max_usd: 20 }
concurrency: 8
output: { dir: out }
steps:
  - id: still
    model: I1
    matrix: { product: [sneaker, watch], colour: [${COLOURS.join(', ')}] }
    input: { prompt: "Acme {{product}} in {{colour}}", aspect_ratio: "16:9" }
    output: { name: "{{product}}/{{colour}}" }
  - id: square
    from: still
    derive:
      - crop: { aspect_ratio: "1:1" }
      - resize: { width: 240 }
      - format: { type: jpeg, quality: 80 }
  - id: tiny
    from: still
    review: true
    derive: [{ resize: { width: 1280 } }, { format: { type: jpeg, max_bytes: 300 } }]
`;

/** Where the cards of a sheet's last column and the detail pane are on screen. */
async function lastColumn(page: Page, step: string) {
  return page.evaluate((id) => {
    const sheet = document.querySelector(`section[data-step="${id}"] .sheet`) as HTMLElement;
    const cols = Number(sheet.style.getPropertyValue('--cols'));
    const cells = [...sheet.querySelectorAll('.cell')].filter((_, i) => i % cols === cols - 1);
    const main = document.querySelector('main')!;
    const box = main.getBoundingClientRect();
    return {
      cols,
      rights: cells.flatMap((cell) =>
        [...cell.querySelectorAll('.item')].map((item) => item.getBoundingClientRect().right),
      ),
      // What of main a person sees without scrolling sideways: its box less its scroll bar.
      visibleRight: box.left + main.clientWidth,
      detailLeft: document.getElementById('detail')!.getBoundingClientRect().left,
    };
  }, step);
}

it('shows each derive step as a channel sheet, and an eight-column sheet whole at 1400 px', async () => {
  const h = await harness();
  const plan = await h.plan(SPEC);
  expect((await h.run(plan)).outcome).toBe('completed');
  const { campaign, browser, page } = await openCampaignPage(h.temporal, plan.campaign);

  // One card per still in each channel, named by its file, in the still sheet's order.
  const names = (step: string) => page.locator(`section[data-step="${step}"] .item .name`).allTextContents();
  const files = ['sneaker', 'watch'].flatMap((product) => COLOURS.map((colour) => `${product}/${colour}`));
  expect(await names('still')).toEqual(files.map((file) => `still/${file}.png`));
  expect(await names('square')).toEqual(files.map((file) => `square/${file}.jpg`));
  expect(await names('tiny')).toEqual(files.map((file) => `tiny/${file}`));
  // Made: the picture is served and shown, with its size in pixels and bytes and its format.
  const square = page.locator('section[data-step="square"]');
  await square.locator('img').last().scrollIntoViewIfNeeded();
  await expect
    .poll(() =>
      square.locator('img').evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth)),
    )
    .toEqual(Array(16).fill(240));
  expect(await square.locator('.item .facts').first().textContent()).toMatch(/^240×240 · \d+\.\d kB · jpg$/);
  expect(await square.locator('.counts').textContent()).toBe('16 made');
  // Failed: said on the card, with why.
  const tiny = page.locator('section[data-step="tiny"]');
  expect(await tiny.locator('.item[data-state="failed"]').count()).toBe(16);
  expect(await tiny.locator('.item .facts').first().textContent()).toMatch(
    /^derive_failed: operation 2 \(format\)/,
  );

  // Read-only: a decision key on a derived file sends nothing and says why.
  await square.locator('.item').first().click();
  expect(await page.locator('#detail h3').textContent()).toBe('square/sneaker/coral.jpg');
  expect(await page.locator('#detail .from').textContent()).toBe('from still/sneaker/coral.png');
  await page.keyboard.press('a');
  expect(await page.locator('#status').textContent()).toBe(
    'derived files are read-only: decide on the output they are made from',
  );
  expect(await page.locator('.item.pending').count()).toBe(0);
  // A reviewed derive step's file that could not be made asks nothing: the campaign ended, and a
  // decision key on it says there is nothing to decide.
  expect(await tiny.locator('h2 small').textContent()).toBe('derived from still · reviewed');
  await tiny.locator('.item').first().click();
  await page.keyboard.press('r');
  expect(await page.locator('#status').textContent()).toBe(
    'tiny/sneaker/coral could not be made: nothing to decide',
  );
  expect(await page.locator('.item.pending').count()).toBe(0);

  // Eight columns at 1400 px and at 1920 px: the last one is on screen, clear of the detail pane.
  await mkdir(ARTIFACTS, { recursive: true });
  for (const width of [1400, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.locator('section[data-step="still"]').scrollIntoViewIfNeeded();
    const { cols, rights, visibleRight, detailLeft } = await lastColumn(page, 'still');
    expect(cols).toBe(8);
    expect(rights).toHaveLength(2);
    for (const right of rights) {
      expect(right).toBeLessThanOrEqual(visibleRight);
      expect(right).toBeLessThanOrEqual(detailLeft);
    }
    await page.screenshot({ path: fileURLToPath(new URL(`channels-${width}.png`, ARTIFACTS)) });
  }
  await tiny.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await tiny.locator('.item').first().hover();
  await page.screenshot({ path: fileURLToPath(new URL('channels-failed.png', ARTIFACTS)) });

  // The report shows the same channels from file://, its pictures through relative links.
  const { file } = await writeReport(await campaign.load());
  const report = await browser.context.newPage();
  await report.goto(pathToFileURL(file).href);
  expect(
    await report.locator('section.step').evaluateAll((s) => s.map((el) => (el as HTMLElement).dataset.step)),
  ).toEqual(['still', 'square', 'tiny']);
  const reported = report.locator('section[data-step="square"] img');
  await reported.last().scrollIntoViewIfNeeded();
  await expect
    .poll(() =>
      reported.evaluateAll(
        (imgs) => imgs.filter((img) => (img as HTMLImageElement).naturalWidth === 240).length,
      ),
    )
    .toBe(16);
}, 120_000);
