/// <reference lib="dom" />
/**
 * The emulator's videos as a person sees them, in Debian's Chromium: an image-to-video
 * prediction made from one of the emulator's stills plays (its clock advances, no error) and
 * its first frame is that still; a retake of the still (a new prediction) is visibly another
 * picture, so the comparison can tell them apart. Screenshots in test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, type Browser, launchBrowser } from '../review/browser.ts';
import { createBody, I1, settled, useEmulator } from './helpers.ts';

/** The page's own origin: files are served from memory, so the canvas may read every pixel. */
const ORIGIN = 'http://media.test';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe('emulated videos in Chromium', () => {
  const { call } = useEmulator();

  async function made(path: string, input: Record<string, unknown>): Promise<string> {
    const created = await call('POST', path, createBody(input));
    expect(created.status).toBe(200);
    return (await settled(call, created.body.id)).output_data.urls[0];
  }

  async function bytesOf(url: string): Promise<Buffer> {
    return Buffer.from(await (await fetch(url)).arrayBuffer());
  }

  /** Mean absolute difference (0–255) between the video's current frame and a picture. */
  function frameDifference(page: Page, picture: string): Promise<number> {
    return page.evaluate(async (src) => {
      const video = document.querySelector('video')!;
      const img = new Image();
      img.src = src;
      await img.decode();
      const read = (source: CanvasImageSource) => {
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        const context = canvas.getContext('2d')!;
        context.drawImage(source, 0, 0, canvas.width, canvas.height);
        return context.getImageData(0, 0, canvas.width, canvas.height).data;
      };
      const [a, b] = [read(video), read(img)];
      let sum = 0;
      for (let i = 0; i < a.length; i += 4) {
        sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
      }
      return sum / ((a.length / 4) * 3);
    }, picture);
  }

  it('plays an image-to-video output whose first frame is its still', async () => {
    const prompt = 'Acme sneaker on a red background, studio light';
    const still = await made(I1, { prompt, aspect_ratio: '16:9' });
    const retake = await made(I1, { prompt, aspect_ratio: '16:9' });
    const clip = await made('/mf-v4/v4-base/predictions', {
      prompt: 'Slow orbit',
      start_image: still,
      duration: '5',
    });
    const files: Record<string, [Buffer, string]> = {
      '/still.png': [await bytesOf(still), 'image/png'],
      '/retake.png': [await bytesOf(retake), 'image/png'],
      '/clip.mp4': [await bytesOf(clip), 'video/mp4'],
      '/': [
        Buffer.from(
          '<video src="/clip.mp4" poster="/still.png" muted playsinline preload="auto" width="512"></video>',
        ),
        'text/html',
      ],
    };
    const page = await browser.context.newPage();
    await page.route(`${ORIGIN}/**`, (route) => {
      const [body, contentType] = files[new URL(route.request().url()).pathname] ?? [
        Buffer.from('no'),
        'text/plain',
      ];
      return route.fulfill({ body, contentType });
    });
    await page.goto(`${ORIGIN}/`);
    const video = page.locator('video');
    // HAVE_CURRENT_DATA: the first frame is decoded and shown.
    await expect
      .poll(() => video.evaluate((el: HTMLVideoElement) => el.error?.message ?? el.readyState), {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(2);
    expect(
      await video.evaluate((el: HTMLVideoElement) => [el.videoWidth, el.videoHeight, el.duration]),
    ).toEqual([512, 288, 5]);
    const fromStill = await frameDifference(page, '/still.png');
    const fromRetake = await frameDifference(page, '/retake.png');
    // YUV 4:2:0 rounds colours a little and blends them at edges; another picture differs a lot.
    expect(fromStill).toBeLessThan(3);
    expect(fromRetake).toBeGreaterThan(4 * fromStill + 5);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: fileURLToPath(new URL('video-first-frame.png', ARTIFACTS)) });

    await video.evaluate((el: HTMLVideoElement) => el.play());
    await expect
      .poll(() => video.evaluate((el: HTMLVideoElement) => el.currentTime), { timeout: 20_000 })
      .toBeGreaterThan(1.5);
    expect(await video.evaluate((el: HTMLVideoElement) => el.error)).toBeNull();
    // It moves: the frame shown is no longer the still.
    expect(await frameDifference(page, '/still.png')).toBeGreaterThan(fromStill + 1);
    await page.screenshot({ path: fileURLToPath(new URL('video-playing.png', ARTIFACTS)) });
  });
});
