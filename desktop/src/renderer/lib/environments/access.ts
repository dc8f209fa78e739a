// What the caller may do with an environment, from its `role` (GET /environments/:id), by the API's
// one rule (`roleAllows`: viewers read, operators also generate, push and plan, editors also
// change). An environment without a role is the caller's own. The server decides; the page only
// offers what it would allow.
import { roleAllows, type EnvironmentAction } from '@ies/api/schemas/teams'
import type { Environment } from '../api/types.ts'

export function mayDo(role: Environment['role'], action: EnvironmentAction): boolean {
  return roleAllows(role ?? 'owner', action)
}
