/**
 * derive-2k's plain script (bench/derive.ts): what a team would write without mediaflow, sharp's
 * own calls and p-limit at the cores, one file per channel; and the channels and headline both
 * sides make.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pLimit from 'p-limit';
import sharp from 'sharp';

export const FONT = createRequire(import.meta.url).resolve(
  '@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf',
);
export const CHANNELS = [
  { step: 'feed', width: 1080, height: 1080 },
  { step: 'story', width: 1080, height: 1920 },
  { step: 'banner', width: 1200, height: 628 },
] as const;
export const HEADLINE = 'Soft, breathable, everyday';

/** What a plain script would write: sharp's own calls, one file per channel, `cores` at once. */
export async function plainScript(stills: readonly string[], out: string, cores: number): Promise<void> {
  const limit = pLimit(cores);
  await Promise.all(
    stills.flatMap((file, index) =>
      CHANNELS.map((channel) =>
        limit(async () => {
          // The headline on a box behind it, as mediaflow's text operation draws it.
          const text = await sharp({
            text: {
              text: `<span foreground="#ffffff">${HEADLINE}</span>`,
              font: 'Noto Sans JP Bold',
              fontfile: FONT,
              width: channel.width - 64,
              dpi: 144,
              rgba: true,
            },
          })
            .png()
            .toBuffer({ resolveWithObject: true });
          const box = await sharp({
            create: {
              width: text.info.width + 28,
              height: text.info.height + 28,
              channels: 4,
              background: { r: 0, g: 0, b: 0, alpha: 0.53 },
            },
          })
            .composite([{ input: text.data }])
            .png()
            .toBuffer();
          await sharp(file)
            .resize(channel.width, channel.height, { fit: 'cover' })
            .composite([{ input: box, gravity: 'south' }])
            .jpeg({ quality: 85 })
            .toFile(join(out, `${channel.step}-${index}.jpg`));
        }),
      ),
    ),
  );
}
