/** What creating predictions needs, given by the worker (activities are built by a factory). */
import type { ServiceClient } from '../../api/client/index.ts';
import type { ClaimsIndex } from '../../records/claims-index.ts';
import type { InputResolver } from '../resolve-input.ts';

export interface CreateDeps {
  readonly client: ServiceClient;
  readonly resolver: InputResolver;
  /** This worker's view of the claims (claims-index.ts). */
  readonly claims: ClaimsIndex;
}
