/**
 * The single account's credits (one credit = one dollar) and what it has spent. Amounts are
 * integer micro-dollars end to end; a charge and its refund always cancel exactly.
 */
import type { ModelLabel } from '../../api/catalogue/index.ts';
import { formatUsd, type Micros, parseUsd } from '../../api/money.ts';
import type { Balance, Usage } from '../../api/wire/index.ts';

export interface AccountState {
  balance: Micros;
  usage: Array<{ label: ModelLabel; predictions: number; spent: Micros }>;
  createdAt: string;
}

interface ModelUsage {
  predictions: number;
  spent: Micros;
}

export class CreditAccount {
  private balance: Micros;
  private readonly usage = new Map<ModelLabel, ModelUsage>();
  readonly id = 'acct_emulator';
  readonly userId = 'user_emulator';
  createdAt = new Date().toISOString();

  constructor(startingCredits: string) {
    this.balance = parseUsd(startingCredits);
  }

  /** Credits bought (tests and drills: the user tops the account up after it ran dry). */
  addCredits(amount: Micros): void {
    this.balance += amount;
  }

  canPay(amount: Micros): boolean {
    return this.balance >= amount;
  }

  available(): Micros {
    return this.balance;
  }

  charge(label: ModelLabel, amount: Micros): void {
    this.balance -= amount;
    const entry = this.entry(label);
    entry.predictions++;
    entry.spent += amount;
  }

  /** Failed and canceled predictions are refunded in full (our choice). */
  refund(label: ModelLabel, amount: Micros): void {
    this.balance += amount;
    this.entry(label).spent -= amount;
  }

  /** What the state file keeps (emulator/persistence). */
  save(): AccountState {
    const usage = [...this.usage].map(([label, entry]) => ({ label, ...entry }));
    return { balance: this.balance, usage, createdAt: this.createdAt };
  }

  restore(state: AccountState): void {
    this.balance = state.balance;
    this.createdAt = state.createdAt;
    this.usage.clear();
    for (const { label, predictions, spent } of state.usage) this.usage.set(label, { predictions, spent });
  }

  balanceToWire(): Balance {
    return { credits: formatUsd(this.balance), currency: 'USD' };
  }

  usageToWire(idOf: (label: ModelLabel) => string): Usage {
    let predictions = 0;
    let spent = 0;
    const byModel = [...this.usage].map(([label, entry]) => {
      predictions += entry.predictions;
      spent += entry.spent;
      return { model: idOf(label), predictions: entry.predictions, credits: formatUsd(entry.spent) };
    });
    return { predictions, credits: formatUsd(spent), by_model: byModel };
  }

  private entry(label: ModelLabel): ModelUsage {
    let entry = this.usage.get(label);
    if (!entry) {
      entry = { predictions: 0, spent: 0 };
      this.usage.set(label, entry);
    }
    return entry;
  }
}
