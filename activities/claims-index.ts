/**
 * The claims of each campaign in this worker's memory, by idempotency key, read incrementally
 * (jsonl.ts, AppendedLines): each lookup reads just the claims appended since the last one.
 * Every create asks it (create/adopt-claimed.ts); reading the whole log each time made a
 * 10,000-job campaign quadratic in worker CPU (measured: 93 s against 53 s).
 */
import { Claim, claimsFile } from './claims.ts';
import { AppendedLines } from './jsonl.ts';

class CampaignClaims {
  private readonly byKey = new Map<string, Claim>();
  private readonly appended: AppendedLines<typeof Claim>;

  constructor(file: string) {
    this.appended = new AppendedLines(file, Claim);
  }

  async lookup(idempotencyKey: string): Promise<Claim | undefined> {
    for (const claim of await this.appended.next()) this.byKey.set(claim.idempotency_key, claim);
    return this.byKey.get(idempotencyKey);
  }
}

export class ClaimsIndex {
  private readonly campaigns = new Map<string, CampaignClaims>();

  of(outputDir: string, campaign: string): CampaignClaims {
    const file = claimsFile(outputDir, campaign);
    let claims = this.campaigns.get(file);
    if (!claims) {
      claims = new CampaignClaims(file);
      this.campaigns.set(file, claims);
    }
    return claims;
  }
}
