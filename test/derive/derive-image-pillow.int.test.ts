/**
 * Still derivatives read back by another reader than the sharp that wrote them: Pillow (in
 * `.tools/pillow-venv`, installed by `npm run setup:all`) opens each file, decodes every pixel and
 * says what format and size it is.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it, onTestFinished } from 'vitest';
import { sizeAfter } from '../../derive/geometry.ts';
import { deriveImage } from '../../derive/image/derive-image.ts';
import type { ImageFormat, ImageOperation } from '../../derive/operations.ts';
import { gradientPng, HEIGHT, WIDTH } from './stills.ts';

const PYTHON = fileURLToPath(new URL('../../.tools/pillow-venv/bin/python', import.meta.url));
const READ = [
  'import json, sys',
  'from PIL import Image',
  'found = []',
  'for path in sys.argv[1:]:',
  '    with Image.open(path) as image:',
  '        image.load()',
  '        found.append([image.format, image.width, image.height])',
  'print(json.dumps(found))',
].join('\n');

const DERIVATIVES: { type: ImageFormat; operations: ImageOperation[] }[] = [
  {
    type: 'jpeg',
    operations: [
      { op: 'crop', aspectRatio: [4, 5], focus: 'attention' },
      { op: 'resize', width: 123, height: null, fit: 'cover', background: '#000000' },
    ],
  },
  {
    type: 'webp',
    operations: [{ op: 'resize', width: 200, height: 90, fit: 'pad', background: '#ffffff' }],
  },
  {
    type: 'png',
    operations: [
      { op: 'rotate', degrees: 90 },
      { op: 'pad', width: 200, height: 330, position: 'bottom-right', background: '#00000000' },
    ],
  },
];

it('writes jpeg, webp and png derivatives Pillow reads back with their format and size', async () => {
  expect(existsSync(PYTHON), `Pillow is missing (${PYTHON}): run \`npm run setup:all\``).toBe(true);
  const folder = await mkdtemp(join(tmpdir(), 'derive-pillow-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  const input = await gradientPng();
  const files: string[] = [];
  const expected: [string, number, number][] = [];
  for (const { type, operations } of DERIVATIVES) {
    const format = { op: 'format', type, quality: null, maxBytes: null } as const;
    const derived = await deriveImage(input, [...operations, format], { xmp: null });
    const file = join(folder, `derived.${type}`);
    await writeFile(file, derived.data);
    files.push(file);
    const walk = sizeAfter({ width: WIDTH, height: HEIGHT }, operations, 'pixel');
    if (!walk.ok) throw new Error(`the fixture's operations do not apply: ${walk.reason}`);
    expected.push([type.toUpperCase(), walk.size.width, walk.size.height]);
  }
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', READ, ...files]);
  expect(JSON.parse(stdout)).toEqual(expected);
});
