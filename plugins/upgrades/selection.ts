// Which environments a bulk upgrade's body selects: `ids`, `names` and `pattern` (a picomatch glob on
// names) each select an environment behind or not; no selection takes every environment of the
// caller's (and their teams', where their role allows operating) for the status to filter.
import type { FastifyRequest } from 'fastify'
import picomatch from 'picomatch'
import { AppError } from '@ies/server/core/errors'
import { roleAllows, type EnvironmentAction } from '@ies/api/schemas/teams'
import type { UpgradeBody } from '@ies/api/schemas/upgrades'
import type { EnvironmentRecord } from '../environments/record.ts'
import type { EnvironmentRepository } from '../environments/repository.ts'

type Principal = FastifyRequest['principal']

/** Environments read per page when all of a caller's are needed. */
const PAGE = 500

/** The owner keys (the caller's own, their teams') whose environments the caller's role allows the action on. */
export async function ownerKeys(environments: EnvironmentRepository, principal: Principal, action: EnvironmentAction): Promise<string[]> {
  return (await environments.scopes(principal)).filter((scope) => roleAllows(scope.role, action)).map((scope) => scope.ownerKey)
}

/** The caller's own environments and their teams' where their role allows the action. */
async function allOf(environments: EnvironmentRepository, principal: Principal, action: EnvironmentAction): Promise<EnvironmentRecord[]> {
  const out: EnvironmentRecord[] = []
  for (const scope of await ownerKeys(environments, principal, action)) {
    for (let page = 1, read = 0; ; page++) {
      const { items, total } = await environments.list(scope, { page, limit: PAGE })
      out.push(...items)
      read += items.length
      if (items.length < PAGE || read >= total) break
    }
  }
  return out
}

/** What a 403 says the caller's role lacks (its `details`), else its message. */
const refusalReason = (err: AppError) => (err.details as { message?: string }[] | undefined)?.[0]?.message ?? err.message

/** One named environment the caller may push, or why not (404 and 403 become a skip reason). */
async function operable(environments: EnvironmentRepository, principal: Principal, id: string): Promise<EnvironmentRecord | string> {
  try {
    return (await environments.access(principal, id, 'operate')).env
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) return 'not found'
    if (err instanceof AppError && err.statusCode === 403) return refusalReason(err)
    throw err
  }
}

export interface Selection {
  candidates: EnvironmentRecord[]
  /** The body named environments (ids, names or pattern): each is upgraded, behind or not. */
  explicit: boolean
  /** Those it named that the caller cannot operate, with the reason. */
  missing: { environmentId: string; reason: string }[]
}

/** The environments a body selects, and those it names that do not exist or may not be operated. */
export async function selection(environments: EnvironmentRepository, principal: Principal, body: UpgradeBody): Promise<Selection> {
  const missing: Selection['missing'] = []
  const chosen = new Map<string, EnvironmentRecord>()
  const explicit = body.ids !== undefined || body.names !== undefined || body.pattern !== undefined
  for (const id of new Set(body.ids ?? [])) {
    const env = await operable(environments, principal, id)
    if (typeof env !== 'string') chosen.set(env._id, env)
    else missing.push({ environmentId: id, reason: env })
  }
  if (body.names !== undefined || body.pattern !== undefined || !explicit) {
    const all = await allOf(environments, principal, 'operate')
    const names = new Set(body.names ?? [])
    const matches = body.pattern ? picomatch(body.pattern) : () => false
    for (const env of all) if (!explicit || names.has(env.name) || matches(env.name)) chosen.set(env._id, env)
    for (const name of names) if (!all.some((e) => e.name === name)) missing.push({ environmentId: name, reason: 'not found' })
  }
  return { candidates: [...chosen.values()], explicit, missing }
}
