/**
 * Writes never follow a symbolic link out of the output folder: a step folder linked elsewhere
 * is refused (and nothing is created there), the output folder itself may be a link, and an
 * append-only log that is a link is not appended through.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { localFailureKind } from '../../activities/failure-kind.ts';
import { addClaims } from '../../records/claims.ts';
import { appendLines } from '../../records/jsonl.ts';
import { TRUSTED_MS } from '../../store/confine.ts';
import { LocalStore, OutputRoot } from '../../store/index.ts';

function folders() {
  const base = mkdtempSync(join(tmpdir(), 'mf-confined-'));
  const out = join(base, 'out');
  const elsewhere = join(base, 'elsewhere');
  mkdirSync(out);
  mkdirSync(elsewhere);
  return { base, out, elsewhere };
}

describe('a folder store confined to its output folder', () => {
  it('refuses to write through a step folder that links outside, and creates nothing there', async () => {
    const { out, elsewhere } = folders();
    symlinkSync(elsewhere, join(out, 'still'));
    const store = new LocalStore(out);
    const refusal = store.write('still/still-lamp.png', Readable.from([Buffer.from('png')]));
    await expect(refusal).rejects.toThrow(/resolves to .*elsewhere, outside the output folder/);
    await expect(store.put('still/deeper/state.json', '{}')).rejects.toThrow(/outside the output folder/);
    await expect(store.createOnce('still/record.json', '{}')).rejects.toThrow(/outside the output folder/);
    await expect(store.remove('still/anything')).rejects.toThrow(/outside the output folder/);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(localFailureKind(await refusal.catch((error: unknown) => error))).toBe('output_unwritable');
  });

  it('writes normally, including when the output folder itself is a link the user chose', async () => {
    const { base, out } = folders();
    const linked = join(base, 'linked-out');
    symlinkSync(out, linked);
    const store = new LocalStore(linked);
    await store.put('still/state.json', '{}');
    await store.write('clip/clip-lamp.mp4', Readable.from([Buffer.from('mp4')]));
    expect(existsSync(join(out, 'still/state.json'))).toBe(true);
    expect(await store.read('clip/clip-lamp.mp4')).toBe('mp4');
  });

  it('refuses a folder swapped for a link once the second it was trusted for has passed', async () => {
    const { out, elsewhere } = folders();
    let now = 0;
    const root = new OutputRoot(out, () => now);
    const step = join(out, 'still');
    await root.prepare(step);
    rmSync(step, { recursive: true });
    symlinkSync(elsewhere, step);
    now = TRUSTED_MS;
    await expect(root.prepare(step)).rejects.toThrow(/outside the output folder/);
  });

  it('makes a step folder removed while it was trusted again, and writes into it', async () => {
    const { out } = folders();
    const store = new LocalStore(out);
    await store.write('still/one.png', Readable.from([Buffer.from('1')]));
    rmSync(join(out, 'still'), { recursive: true });
    await store.write('still/two.png', Readable.from([Buffer.from('2')]));
    await store.put('still/three.json', '{}');
    rmSync(join(out, 'still'), { recursive: true });
    expect(await store.createOnce('still/four.json', '{}')).toEqual({ created: true });
    expect(readdirSync(join(out, 'still'))).toEqual(['four.json']);
  });

  it('does not append claims through a claims folder linked elsewhere', async () => {
    const { out, elsewhere } = folders();
    mkdirSync(join(out, '.mediaflow'));
    symlinkSync(elsewhere, join(out, '.mediaflow', 'claims'));
    const claim = { prediction_id: 'p', key: 'k', regen: 0, idempotency_key: 'i' };
    await expect(addClaims(new LocalStore(out), 'spring', [claim])).rejects.toThrow(
      /outside the output folder/,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('does not append to a log that is a symbolic link', () => {
    const { out, elsewhere } = folders();
    writeFileSync(join(elsewhere, 'victim'), 'untouched\n');
    symlinkSync(join(elsewhere, 'victim'), join(out, 'manifest.jsonl'));
    expect(() => appendLines(join(out, 'manifest.jsonl'), ['{}'])).toThrow(/ELOOP/);
    expect(readdirSync(elsewhere)).toEqual(['victim']);
  });
});
