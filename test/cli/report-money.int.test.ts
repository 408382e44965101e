/**
 * `report` after an edit that renamed a colour and a re-run: its headline is what the campaign
 * paid in all runs, the service's ledger to the cent and what `status` says "in all runs", and
 * it names the money paid for the job the edit removed, so the steps and it add up to the
 * headline (issue 20). Child processes, as a user types them, against the suite's Temporal.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specOnSuiteStack, writeSpec } from './helpers.ts';

describe('report after an edit', () => {
  it('heads with the ledger’s total and names what was paid for the job the edit removed', async () => {
    const { emulator, dir, spec, campaign, run: cli } = await specOnSuiteStack('money');

    // Three stills at $0.03; then red renamed crimson: one still more, $0.12 paid in all.
    expect((await cli('run', 'spec.yaml', '--worker')).code).toBe(0);
    await writeSpec(dir, spec.replace('red, green', 'crimson, green'));
    expect((await cli('run', 'spec.yaml', '--worker')).code).toBe(0);
    expect(emulator.ledger().creditsCharged).toBe('0.12');

    const status = await cli('status', campaign);
    expect(status.stdout).toContain('($0.12 in all runs)');
    const report = await cli('report', campaign);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(
      "spent $0.12 in all runs: $0.09 on this plan's steps, $0.03 paid for jobs an edit removed (superseded)",
    );
    const html = await readFile(join(dir, 'out', 'report.html'), 'utf8');
    expect(html).toMatch(/class="stat spent"><span>[^<]*<\/span><strong>\$0\.12<\/strong>/);
    expect(html).toContain('$0.03 paid for jobs an edit removed (superseded)');
    const json = JSON.parse((await cli('report', campaign, '--json')).stdout);
    expect(json).toMatchObject({ spent_usd: '0.12', superseded_usd: '0.03' });
  }, 240_000);
});
