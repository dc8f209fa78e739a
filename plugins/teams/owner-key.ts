// How a team's holdings are stored, and the caller's teams as the access rule reads them.
import type { TeamRole } from '@ies/api/schemas/teams'

/** A caller's team: its id, name and the caller's role in it. */
export interface TeamMembership {
  id: string
  name: string
  role: TeamRole
}

/** The caller's teams by id (`app.teams.rolesOf`). */
export type TeamRoles = (caller: { username: string; groups: readonly string[]; client: string }) => Promise<Map<string, TeamMembership>>

/**
 * The owner key a team's environments and cloud credentials are stored under (their `userId`): what
 * a user's are scoped by, a team's are, so every per-owner rule (names, summaries, locks, credential
 * references) holds for a team as for a user.
 */
export const TEAM_OWNER_PREFIX = 'team:'
export const teamOwnerKey = (teamId: string) => `${TEAM_OWNER_PREFIX}${teamId}`
export const teamIdOf = (ownerKey: string): string | null =>
  ownerKey.startsWith(TEAM_OWNER_PREFIX) ? ownerKey.slice(TEAM_OWNER_PREFIX.length) : null
