// Reading `terraform show -json <plan>` into the API's plan result: each managed resource's action,
// the attributes that change (values Terraform marks sensitive masked, long values cut), whether it
// holds data (data-holders.ts), and the counts of Terraform's own "Plan:" line.
import type { PlanAction, PlanAttribute, PlanResource, PlanSummary } from '@ies/api/schemas/plans'
import { dataKindOf, type DataHolders } from './data-holders.ts'

/** One entry of `resource_changes` or `resource_drift` in Terraform's JSON plan. */
interface JsonChange {
  address: string
  mode: 'managed' | 'data'
  type: string
  action_reason?: string
  change: {
    actions: string[]
    before: Record<string, unknown> | null
    after: Record<string, unknown> | null
    after_unknown?: Record<string, unknown>
    before_sensitive?: Record<string, unknown> | boolean
    after_sensitive?: Record<string, unknown> | boolean
    replace_paths?: (string | number)[][]
  }
}

/** A module of the plan's `configuration`: its resources (with the attributes they set) and the modules it calls. */
interface JsonModule {
  resources?: { address: string; expressions?: Record<string, unknown> }[]
  module_calls?: Record<string, { module?: JsonModule }>
}

export interface JsonPlan {
  terraform_version?: string
  resource_changes?: JsonChange[]
  resource_drift?: JsonChange[]
  configuration?: { root_module?: JsonModule }
}

/** A resource instance's address without its instance keys: module.a["x"].b.c[0] -> module.a.b.c */
const configAddress = (address: string) => address.replace(/\[[^\]]*\]/g, '')

/** The attributes each resource of the configuration sets (by address without instance keys). */
export function configuredAttributes(plan: JsonPlan): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  const walk = (module: JsonModule | undefined, prefix: string) => {
    for (const r of module?.resources ?? []) out.set(`${prefix}${r.address}`, new Set(Object.keys(r.expressions ?? {})))
    for (const [name, call] of Object.entries(module?.module_calls ?? {})) walk(call.module, `${prefix}module.${name}.`)
  }
  walk(plan.configuration?.root_module, '')
  return out
}

/**
 * Drift as the configuration sees it: each resource whose refreshed state differs from the state in
 * an attribute its configuration sets, with those attributes only. What the configuration leaves to
 * the provider or to another resource (an S3 bucket's versioning, set by aws_s3_bucket_versioning;
 * a role's policy attachments) is filled in by the refresh after any apply and is not drift.
 * A resource gone from the cloud is always drift.
 */
export function driftOf(resources: readonly PlanResource[], configured: Map<string, Set<string>>): PlanResource[] {
  return resources.flatMap((r) => {
    if (r.action !== 'update') return [r]
    // An update whose top-level attributes all read the same (a policy document reordered) is none.
    const set = configured.get(configAddress(r.address))
    const attributes = set ? r.attributes.filter((a) => set.has(a.name)) : r.attributes
    return attributes.length > 0 ? [{ ...r, attributes }] : []
  })
}

/** The longest value shown, in characters. */
export const VALUE_CAP = 200
const SENSITIVE = '(sensitive)'
const UNKNOWN = '(known after apply)'

function actionOf(actions: readonly string[]): PlanAction | null {
  if (actions.includes('delete') && actions.includes('create')) return 'replace'
  if (actions.length === 1 && ['create', 'update', 'delete', 'no-op'].includes(actions[0]!)) return actions[0] as PlanAction
  return null // read, forget: nothing changes in the cloud
}

/** Whether anything below `marks` (Terraform's sensitivity or unknown marks) is true. */
function marked(marks: unknown): boolean {
  if (marks === true) return true
  if (marks && typeof marks === 'object') return Object.values(marks).some(marked)
  return false
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null'
  return text.length > VALUE_CAP ? `${text.slice(0, VALUE_CAP - 1)}…` : text
}

function markOf(marks: Record<string, unknown> | boolean | undefined, name: string): unknown {
  return marks === true ? true : marks && typeof marks === 'object' ? marks[name] : undefined
}

/** The top-level attributes an update or replacement changes; those forcing a replacement first. */
function changedAttributes(c: JsonChange['change'], action: PlanAction): PlanAttribute[] {
  if (action !== 'update' && action !== 'replace') return []
  const before = c.before ?? {}
  const after = c.after ?? {}
  const unknown = c.after_unknown ?? {}
  const forcing = (c.replace_paths ?? []).map((p) => String(p[0]))
  const names = [...new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(unknown)])].filter(
    (name) => marked(unknown[name]) || JSON.stringify(before[name]) !== JSON.stringify(after[name]),
  )
  names.sort((a, b) => Number(forcing.includes(b)) - Number(forcing.includes(a)) || a.localeCompare(b))
  return names.map((name) => {
    const sensitive = marked(markOf(c.before_sensitive, name)) || marked(markOf(c.after_sensitive, name))
    return {
      name,
      ...(name in before && { before: sensitive ? SENSITIVE : shown(before[name]) }),
      after: marked(unknown[name]) ? UNKNOWN : sensitive ? SENSITIVE : shown(after[name]),
    }
  })
}

/** The resources a plan changes (managed ones; data sources are read, not changed), data holders first. */
export function resourcesOf(changes: readonly JsonChange[], holders: DataHolders): { resources: PlanResource[]; noOp: number } {
  const resources: PlanResource[] = []
  let noOp = 0
  for (const c of changes) {
    if (c.mode !== 'managed') continue
    const action = actionOf(c.change.actions)
    if (!action) continue
    if (action === 'no-op') {
      noOp++
      continue
    }
    const kind = dataKindOf(holders, c.type, c.change.before)
    resources.push({
      address: c.address,
      type: c.type,
      action,
      attributes: changedAttributes(c.change, action),
      holdsData: kind !== null,
      ...(kind && { dataKind: kind }),
      ...(c.action_reason && { reason: c.action_reason }),
    })
  }
  resources.sort((a, b) => Number(b.holdsData) - Number(a.holdsData) || a.address.localeCompare(b.address))
  return { resources, noOp }
}

/** The counts of Terraform's "Plan:" line: a replacement is one to add and one to destroy. */
export function summaryOf(resources: readonly PlanResource[], noOp: number): PlanSummary {
  const count = (action: PlanAction) => resources.filter((r) => r.action === action).length
  const replace = count('replace')
  return { add: count('create') + replace, change: count('update'), destroy: count('delete') + replace, replace, noOp }
}

/** The data-holding resources the plan replaces or destroys. */
export function dataAtRisk(resources: readonly PlanResource[]): string[] {
  return resources.filter((r) => r.holdsData && (r.action === 'replace' || r.action === 'delete')).map((r) => r.address)
}
