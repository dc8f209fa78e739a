// Teams: the one source for their validation, types and OpenAPI document, and for what each role may do.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'

/** A member's role in a team, weakest first: each may do what the one before may, and more. */
export const TEAM_ROLES = ['viewer', 'operator', 'editor'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]

/** What is done to an environment: read (and download), operate (generate, push, upgrade), change (create, write, delete, move). */
export type EnvironmentAction = 'read' | 'operate' | 'change'

/** The weakest team role that may do each action. */
export const ROLE_NEEDED: Record<EnvironmentAction, TeamRole> = { read: 'viewer', operate: 'operator', change: 'editor' }

/** The caller's role on an environment: `owner` of a personal one, else their role in its team. */
export type EnvironmentRole = TeamRole | 'owner'

export function roleAllows(role: EnvironmentRole, action: EnvironmentAction): boolean {
  return role === 'owner' || TEAM_ROLES.indexOf(role) >= TEAM_ROLES.indexOf(ROLE_NEEDED[action])
}

/** The stronger of two roles. */
export const strongerRole = (a: TeamRole, b: TeamRole): TeamRole => (TEAM_ROLES.indexOf(a) >= TEAM_ROLES.indexOf(b) ? a : b)

/** A team's name: what environments, the CLI and identity-provider groups name it by; like an environment name. */
export const TeamName = Type.String({
  pattern: '^[a-z][a-z0-9-]{1,49}$',
  maxLength: 50,
  description: 'Lowercase letters, digits and hyphens, 2-50, a letter first.',
})

export const Role = StringEnum(TEAM_ROLES)

/** `user`: a person, by their identity-provider user name. `client`: a service account, by its client id (e.g. `ies-cli`). */
export const MemberKind = StringEnum(['user', 'client'] as const)

export const Member = Type.Object({
  kind: MemberKind,
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s/]+$' }),
  role: Role,
})
export type Member = Static<typeof Member>

export const Team = Type.Object({
  id: Type.String(),
  name: TeamName,
  /** The caller's role in it (absent for an admin who is not a member). */
  role: Type.Optional(Role),
  requireProductionApproval: Type.Boolean({
    description: 'Pushes and upgrades of its environments labelled `tier: production` wait for another member to approve them.',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})
export type Team = Static<typeof Team>

export const TeamInput = Type.Object({ name: TeamName }, { additionalProperties: false })

/** A team's settings (PUT /teams/:team/settings). */
export const TeamSettingsInput = Type.Object(
  { requireProductionApproval: Team.properties.requireProductionApproval },
  { additionalProperties: false },
)
export type TeamSettingsInput = Static<typeof TeamSettingsInput>

export const TeamParams = Type.Object({ team: Type.String({ maxLength: 64, description: 'The team id or name.' }) })
export const MemberParams = Type.Object({ ...TeamParams.properties, kind: MemberKind, name: Member.properties.name })

export const MemberInput = Type.Object({ role: Role }, { additionalProperties: false })
