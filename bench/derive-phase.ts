/**
 * One side of derive-2k in a process of its own (bench/lib/own-process.ts), so each side's peak
 * memory is its own: `script <input.json>` runs the plain script, `mediaflow <input.json>` the
 * derive stage, over what bench/derive.ts made.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { plainScript } from './derive-script.ts';
import { deriveAll, Parent } from './lib/derive-stage.ts';
import { reportPhase } from './lib/own-process.ts';

const DerivePhaseInput = z.object({
  folder: z.string(),
  files: z.array(z.string()),
  scriptOut: z.string(),
  cores: z.number().int().positive(),
  parents: z.array(Parent),
});

const [side, inputFile] = process.argv.slice(2);
const input = DerivePhaseInput.parse(JSON.parse(await readFile(inputFile ?? '', 'utf8')));
if (side === 'script') await reportPhase(() => plainScript(input.files, input.scriptOut, input.cores));
else if (side === 'mediaflow') await reportPhase(() => deriveAll(input.folder, input.parents));
else throw new Error(`derive-phase: no side "${side}" (script, mediaflow)`);
