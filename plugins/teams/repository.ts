// Teams in MongoDB. `teams` holds each team (`_id` a uuid, `name` unique); `team_memberships` holds,
// per member (`user:<user name>` or `client:<client id>`), their role in each team: a caller's roles
// are one read by `_id` on every request, so a member removed is refused on their next request.
// Roles from the identity provider's groups claim (groups.ts) are added to those, by team name; a
// team a group names is created the first time someone signs in with it.
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { conflict, notFound } from '@ies/server/core/errors'
import { isDuplicateKey } from '@ies/server/core/db'
import { rolesFromGroups } from './groups.ts'
import { checkScope, scopesOf, targetScope, type Caller, type Holding, type Scope } from './scopes.ts'
import { strongerRole, type EnvironmentAction, type Member, type Team, type TeamRole, type TeamSettingsInput } from '@ies/api/schemas/teams'
import { teamIdOf, teamOwnerKey, type TeamMembership } from './owner-key.ts'

interface TeamDoc {
  _id: string
  name: string
  /** Pushes of its production environments wait for approval (absent: false). */
  requireProductionApproval?: boolean
  createdAt: Date
  updatedAt: Date
}

interface MembershipDoc {
  _id: string
  /** Team id -> role. */
  teams: Record<string, TeamRole>
}

/** Who is asking: the parts of the request's principal teams are resolved from. */
export interface TeamPrincipal {
  username: string
  groups: readonly string[]
  /** The token's client (`azp`). */
  client: string
}

/** Keycloak names a client's service account `service-account-<client id>`. */
const SERVICE_ACCOUNT = 'service-account-'

export const memberKey = (kind: Member['kind'], name: string) => `${kind}:${name}`

/**
 * The membership key of a signed-in caller: the service account of the token's own client (its user
 * name `service-account-<client>`, as Keycloak names it) is that client; anyone else is a user, also
 * a person whose user name merely starts like a service account's.
 */
export function principalKey(principal: Pick<TeamPrincipal, 'username' | 'client'>): string {
  const { username, client } = principal
  return username === `${SERVICE_ACCOUNT}${client}` ? memberKey('client', client) : memberKey('user', username)
}

/** How long the team names read here are used before they are read again (a rename on another server). */
const NAMES_TTL_MS = 5_000

export const toTeam = (doc: TeamDoc, role?: TeamRole): Team => ({
  id: doc._id,
  name: doc.name,
  ...(role && { role }),
  requireProductionApproval: doc.requireProductionApproval === true,
  createdAt: doc.createdAt.toISOString(),
  updatedAt: doc.updatedAt.toISOString(),
})

export class TeamsRepository {
  readonly teams: Collection<TeamDoc>
  readonly memberships: Collection<MembershipDoc>
  /** Read only to refuse deleting a team that still has environments or cloud credentials. */
  private readonly owned: Collection<{ _id: string; userId: string }>[]
  private names?: { at: number; byId: Map<string, TeamDoc>; byName: Map<string, TeamDoc> }
  private indexesReady?: Promise<void>

  constructor(
    db: Db,
    private readonly groupsPrefix: string,
  ) {
    this.teams = db.collection<TeamDoc>('teams')
    this.memberships = db.collection<MembershipDoc>('team_memberships')
    this.owned = [db.collection('environments'), db.collection('cloud_credentials')]
  }

  indexes(): Promise<void> {
    this.indexesReady ??= this.teams
      .createIndex({ name: 1 }, { unique: true, name: 'team_name_unique' })
      .then(() => undefined)
      .catch((err) => {
        this.indexesReady = undefined
        throw err
      })
    return this.indexesReady
  }

  /** Every team, by id and by name: read again when older than NAMES_TTL_MS or when `fresh`. */
  private async known(fresh = false) {
    if (!fresh && this.names && Date.now() - this.names.at < NAMES_TTL_MS) return this.names
    const docs = await this.teams.find({}).sort({ name: 1 }).toArray()
    this.names = { at: Date.now(), byId: new Map(docs.map((d) => [d._id, d])), byName: new Map(docs.map((d) => [d.name, d])) }
    return this.names
  }

  async list(): Promise<TeamDoc[]> {
    return [...(await this.known(true)).byId.values()]
  }

  /** A team by id or name (names are read fresh when not known here). */
  async find(idOrName: string): Promise<TeamDoc | null> {
    const look = (k: Awaited<ReturnType<TeamsRepository['known']>>) => k.byId.get(idOrName) ?? k.byName.get(idOrName)
    return look(await this.known()) ?? look(await this.known(true)) ?? null
  }

  async get(idOrName: string): Promise<TeamDoc> {
    const team = await this.find(idOrName)
    if (!team) throw notFound('Team not found')
    return team
  }

  async create(name: string): Promise<TeamDoc> {
    await this.indexes()
    const now = new Date()
    const doc: TeamDoc = { _id: randomUUID(), name, createdAt: now, updatedAt: now }
    try {
      await this.teams.insertOne(doc)
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`Team '${name}' already exists`)
      throw err
    }
    this.names = undefined
    return doc
  }

  async rename(idOrName: string, name: string): Promise<TeamDoc> {
    const team = await this.get(idOrName)
    try {
      await this.teams.updateOne({ _id: team._id }, { $set: { name, updatedAt: new Date() } })
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`Team '${name}' already exists`)
      throw err
    }
    this.names = undefined
    return this.get(team._id)
  }

  /** Sets the team's settings; the team as stored after. */
  async setSettings(idOrName: string, settings: TeamSettingsInput): Promise<TeamDoc> {
    const team = await this.get(idOrName)
    await this.teams.updateOne({ _id: team._id }, { $set: { ...settings, updatedAt: new Date() } })
    this.names = undefined
    return this.get(team._id)
  }

  /** The team id an environment's or credential's owner key names (`team:<id>`), or null for a user's. */
  teamOf(ownerKey: string): string | null {
    return teamIdOf(ownerKey)
  }

  /** The team as stored now (settings read fresh, not from the names cache), or null. */
  byId(teamId: string): Promise<TeamDoc | null> {
    return this.teams.findOne({ _id: teamId })
  }

  /** Deletes a team without environments or cloud credentials (409 otherwise), and its memberships. */
  async remove(idOrName: string): Promise<void> {
    const team = await this.get(idOrName)
    for (const collection of this.owned) {
      if (await collection.findOne({ userId: teamOwnerKey(team._id) }, { projection: { _id: 1 } })) {
        throw conflict(`Team '${team.name}' still has ${collection.collectionName.replace('_', ' ')}; move or delete them first`)
      }
    }
    await this.teams.deleteOne({ _id: team._id })
    await this.memberships.updateMany({ [`teams.${team._id}`]: { $exists: true } }, { $unset: { [`teams.${team._id}`]: '' } })
    this.names = undefined
  }

  /** The members IES holds for a team (members by groups are the identity provider's). */
  async members(teamId: string): Promise<Member[]> {
    const docs = await this.memberships.find({ [`teams.${teamId}`]: { $exists: true } }).toArray()
    return docs
      .map((d) => {
        const at = d._id.indexOf(':')
        return { kind: d._id.slice(0, at) as Member['kind'], name: d._id.slice(at + 1), role: d.teams[teamId] }
      })
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name))
  }

  async setMember(teamId: string, member: Member): Promise<void> {
    await this.memberships.updateOne(
      { _id: memberKey(member.kind, member.name) },
      { $set: { [`teams.${teamId}`]: member.role } },
      { upsert: true },
    )
  }

  /** False when the member was not one. */
  async removeMember(teamId: string, kind: Member['kind'], name: string): Promise<boolean> {
    const result = await this.memberships.updateOne(
      { _id: memberKey(kind, name), [`teams.${teamId}`]: { $exists: true } },
      { $unset: { [`teams.${teamId}`]: '' } },
    )
    return result.modifiedCount === 1
  }

  /**
   * The caller's teams and role in each: their memberships (one read by `_id`) and their groups, the
   * stronger role where both name a team.
   */
  async rolesOf(principal: TeamPrincipal): Promise<Map<string, TeamMembership>> {
    const doc = await this.memberships.findOne({ _id: principalKey(principal) })
    const out = new Map<string, TeamMembership>()
    const add = (team: TeamDoc, role: TeamRole) => {
      const known = out.get(team._id)
      out.set(team._id, { id: team._id, name: team.name, role: known ? strongerRole(known.role, role) : role })
    }
    const entries = Object.entries(doc?.teams ?? {})
    if (entries.length > 0 || principal.groups.length > 0) {
      let names = await this.known()
      if (entries.some(([id]) => !names.byId.has(id))) names = await this.known(true)
      for (const [id, role] of entries) {
        const team = names.byId.get(id)
        if (team) add(team, role)
      }
      for (const { team, role } of rolesFromGroups(principal.groups, this.groupsPrefix)) add(await this.named(team), role)
    }
    return out
  }

  /** The caller's role on what `ownerKey` holds: 404 when none, 403 when it does not allow the action (scopes.ts). */
  check(
    caller: Caller,
    ownerKey: string | undefined,
    action: EnvironmentAction,
    opts?: { notFoundMessage?: string; what?: Holding },
  ): Promise<Scope> {
    return checkScope((c) => this.rolesOf(c), caller, ownerKey, action, opts)
  }

  /** The caller's own scope and each of their teams' (one team's when `team` is named). */
  scopes(caller: Caller, team?: string): Promise<Scope[]> {
    return scopesOf((c) => this.rolesOf(c), caller, team)
  }

  /** Where something the caller creates or moves goes: their own, or a team they are an editor of. */
  target(caller: Caller, team: string | null | undefined, what?: Holding): Promise<Scope> {
    return targetScope((c) => this.rolesOf(c), caller, team, what)
  }

  /** The team a group names, created when there is none. */
  private async named(name: string): Promise<TeamDoc> {
    const known = await this.find(name)
    if (known) return known
    try {
      return await this.create(name)
    } catch {
      return this.get(name)
    }
  }
}
