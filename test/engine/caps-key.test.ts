/**
 * One caps ledger per API key (docs/caps.md, "One ledger per API key"): the ledger's name of a key
 * is the key's alone, so every spelling of the service URL finds the same ledger, while the rate
 * governor stays one per endpoint; an older ledger a spelling had is taken into the key's ledger
 * once, its spend added and the stricter of each cap kept (workflows/caps/engine/adopt.ts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NO_CAPS } from '../../contract/caps.ts';
import { capsFingerprint, keyFingerprint, keyNames } from '../../control/governor.ts';
import { viewOf } from '../../workflows/caps/engine/view.ts';
import { grantsOf, LedgerDriver } from './caps-ledger-driver.ts';

const KEY = 'mfk_0123456789abcdef0123456789abcdef0123456789abcdef';
const $ = (dollars: number) => Math.round(dollars * 1_000_000);
const NOV_27 = Date.UTC(2026, 10, 27, 9);

describe('the caps ledger names a key by the key alone', () => {
  it.each([
    ['http://127.0.0.1:4010/v1', 'http://localhost:4010/v1'],
    ['https://api.example.com/v1', 'https://api.example.com./v1'],
    ['https://api.example.com/v1', 'https://edge.example.net/v1'],
  ])('%s and %s: one caps ledger, two governors', (a, b) => {
    expect(keyNames(a, KEY).caps.ledger).toBe(keyNames(b, KEY).caps.ledger);
    expect(keyNames(a, KEY).governor).not.toBe(keyNames(b, KEY).governor);
  });

  it('each spelling names the ledger it had before, to carry it over', () => {
    const url = 'http://127.0.0.1:4010/v1';
    expect(keyNames(url, KEY).caps.spelt).toBe(keyFingerprint(url, KEY));
  });

  it('is neither the governor’s name, nor a plain sha256 of the key, and differs between keys', () => {
    expect(capsFingerprint(KEY)).toMatch(/^[0-9a-f]{32}$/);
    expect(capsFingerprint(KEY)).not.toBe(keyFingerprint('http://127.0.0.1:4010/v1', KEY));
    expect(createHash('sha256').update(KEY).digest('hex')).not.toContain(capsFingerprint(KEY));
    expect(capsFingerprint(`${KEY}x`)).not.toBe(capsFingerprint(KEY));
  });
});

describe('the key’s ledger takes in the ledger a spelling had', () => {
  /** A ledger with `caps` on which campaign `who` spent `spent` dollars of I4. */
  function ledgerOf(caps: { monthly?: number; daily?: number }, who: string, spent: number) {
    const ledger = LedgerDriver.at(NOV_27);
    ledger.setCaps(
      {
        ...NO_CAPS,
        monthly: caps.monthly === undefined ? null : $(caps.monthly),
        daily: caps.daily === undefined ? null : $(caps.daily),
      },
      NOV_27,
    );
    ledger.ask({ campaign: who, model: 'I4', unit: $(spent), count: 1 }, NOV_27);
    ledger.spent(who, { I4: $(spent) }, NOV_27);
    return ledger;
  }

  it('adds its spend, keeps the stricter caps, and takes each older ledger once', () => {
    const key = ledgerOf({ monthly: 10 }, 'a', 3);
    const spelt = viewOf(ledgerOf({ monthly: 6, daily: 5 }, 'b', 2).state);
    key.on({ kind: 'adopt', from: 'mediaflow-caps-e3-old', view: spelt, at: NOV_27 });
    key.on({ kind: 'adopt', from: 'mediaflow-caps-e3-old', view: spelt, at: NOV_27 });
    expect(key.state.caps).toEqual({ daily: $(5), monthly: $(6), models: {} });
    expect(key.state.monthSpent).toBe($(5));
    expect(key.state.daySpent).toBe($(5));
    // $1 of room under the $6 monthly cap: a $2 job is held.
    expect(grantsOf(key.ask({ campaign: 'c', model: 'I4', unit: $(2), count: 1 }, NOV_27))).toEqual([
      ['c', 'I4', 0, 'daily'],
    ]);
  });
});
