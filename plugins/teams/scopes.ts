// Who may do what to what an owner holds (environments, cloud credentials): the one rule behind
// `app.environments.access` and the cloud credential routes. What a user owns is theirs alone
// (`owner`); what a team owns (stored under its owner key, `team:<id>`) is open to the team's members
// as far as their role allows (@ies/api/schemas/teams: viewer reads, operator also generates and pushes, editor
// also changes). Anyone else gets 404, as for an id that does not exist; a member whose role does not
// allow the action gets 403.
import { AppError, fieldError, notFound, SPEC_CODES } from '@ies/server/core/errors'
import { ROLE_NEEDED, roleAllows, type EnvironmentAction, type EnvironmentRole } from '@ies/api/schemas/teams'
import { teamIdOf, teamOwnerKey, type TeamMembership, type TeamRoles } from './owner-key.ts'

/** The parts of the request's principal access is decided on. */
export interface Caller {
  userId: string
  username: string
  groups: readonly string[]
  /** The token's client (`azp`): a service account is matched by it. */
  client: string
}

/** Where a caller's environments are stored (an owner key), the team it is, and the caller's role there. */
export interface Scope {
  ownerKey: string
  team?: TeamMembership
  role: EnvironmentRole
}

const VERBS: Record<EnvironmentAction, string> = { read: 'read', operate: 'generate or push', change: 'change' }

/** What is held: `environments` (the default) or `cloud credentials`, in messages. */
export type Holding = 'environments' | 'cloud credentials'

/** 403 `FORBIDDEN` (the spec's message), with the team, the caller's role and the role needed in `details`. */
export function refused(team: string, role: EnvironmentRole, action: EnvironmentAction, what: Holding = 'environments'): AppError {
  // The spec's code and message; what the role lacks is said in `details`, as the field it concerns.
  const reason = `Your role in team '${team}' is ${role}; to ${VERBS[action]} its ${what} you need ${ROLE_NEEDED[action]} or more`
  return new AppError(403, SPEC_CODES.forbidden, 'Insufficient permissions', [{ field: 'role', message: reason }])
}

/** The caller's role on what is stored under `ownerKey`, with the team; null when they have none. */
export async function scopeOf(teamRoles: TeamRoles, caller: Caller, ownerKey: string): Promise<Scope | null> {
  if (ownerKey === caller.userId) return { ownerKey, role: 'owner' }
  const teamId = teamIdOf(ownerKey)
  const team = teamId === null ? undefined : (await teamRoles(caller)).get(teamId)
  return team ? { ownerKey, team, role: team.role } : null
}

/** The caller's own scope and each of their teams' (only `team`'s when it is named). */
export async function scopesOf(teamRoles: TeamRoles, caller: Caller, team?: string): Promise<Scope[]> {
  const teams = [...(await teamRoles(caller)).values()].map((t): Scope => ({ ownerKey: teamOwnerKey(t.id), team: t, role: t.role }))
  if (team !== undefined) return teams.filter((s) => s.team!.name === team)
  return [{ ownerKey: caller.userId, role: 'owner' }, ...teams]
}

/**
 * Where something new (or moved) goes: the caller's own (`team` absent or null), or the team they
 * name, which they must be an editor of (400 on `team` when they are not in it, 403 when their role is weaker).
 */
export async function targetScope(
  teamRoles: TeamRoles,
  caller: Caller,
  team: string | null | undefined,
  what: Holding = 'environments',
): Promise<Scope> {
  if (team === undefined || team === null) return { ownerKey: caller.userId, role: 'owner' }
  const found = [...(await teamRoles(caller)).values()].find((t) => t.name === team)
  if (!found) throw fieldError('team', `must name one of your teams; you are not in a team named '${team}'`)
  if (!roleAllows(found.role, 'change')) throw refused(found.name, found.role, 'change', what)
  return { ownerKey: teamOwnerKey(found.id), team: found, role: found.role }
}

/** 404 (`notFoundMessage`) unless the caller has a role on the owner key, 403 unless it allows the action. */
export async function checkScope(
  teamRoles: TeamRoles,
  caller: Caller,
  ownerKey: string | undefined,
  action: EnvironmentAction,
  { notFoundMessage = 'Environment not found', what = 'environments' as Holding } = {},
): Promise<Scope> {
  const scope = ownerKey === undefined ? null : await scopeOf(teamRoles, caller, ownerKey)
  if (!scope) throw notFound(notFoundMessage)
  if (!roleAllows(scope.role, action)) throw refused(scope.team!.name, scope.role, action, what)
  return scope
}
