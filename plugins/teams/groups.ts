// Team roles from the identity provider's groups claim (TEAMS_GROUPS_CLAIM): a group whose path is
// `<TEAMS_GROUPS_PREFIX><team>/<role>` (by default `/ies/platform/editor`) makes the caller `<role>`
// in team `<team>`. Other groups are ignored, as are roles that are not viewer, operator or editor.
import { TEAM_ROLES, type TeamRole } from '@ies/api/schemas/teams'

const NAME = /^[a-z][a-z0-9-]{1,49}$/

export interface GroupRole {
  team: string
  role: TeamRole
}

export function rolesFromGroups(groups: readonly string[], prefix: string): GroupRole[] {
  const out: GroupRole[] = []
  for (const group of groups) {
    if (!group.startsWith(prefix)) continue
    const [team, role, ...rest] = group.slice(prefix.length).split('/')
    if (rest.length > 0 || !team || !NAME.test(team) || !(TEAM_ROLES as readonly string[]).includes(role ?? '')) continue
    out.push({ team, role: role as TeamRole })
  }
  return out
}
