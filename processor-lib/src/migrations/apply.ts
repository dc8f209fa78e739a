// Applies migrations to a stored configuration (an environment's global fields and `services`).
// Pure: the configuration given is not changed; the result is a new one. A value a step cannot move
// is reported (field and reason), never guessed; the other steps still run so that every problem is
// said at once, and the caller decides (a push with problems does not push).
import type { Migration, Scalar, Step } from './steps.ts'

type Json = Record<string, unknown>

export interface ConfigurationChange {
  /** The configuration path (`services.eks.endpointPublicAccess`). */
  field: string
  /** Absent: the field had no value. */
  before?: unknown
  /** Absent: the field has no value any more. */
  after?: unknown
}

export interface MigrationProblem {
  field: string
  message: string
  /** The id of the migration whose step could not move the value. */
  migration: string
}

export interface MigrationResult<C> {
  configuration: C
  /** The ids of the migrations applied, in order. */
  applied: string[]
  /** Each field the migrations changed, in path order. */
  changes: ConfigurationChange[]
  problems: MigrationProblem[]
}

/** The migrations of `all` (in order) whose ids are not among `applied`. */
export function pendingMigrations(all: readonly Migration[], applied: readonly string[] | undefined): Migration[] {
  const done = new Set(applied ?? [])
  return all.filter((m) => !done.has(m.id))
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const missing = (v: unknown) => v === undefined || v === null
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Reads and writes configuration paths: `<global>` or `services.<key>.<field>`. */
function access(config: Json) {
  const split = (path: string) => {
    const parts = path.split('.')
    return parts.length === 3 ? { service: parts[1], key: parts[2] } : { key: path }
  }
  const serviceOf = (service: string, create: boolean): Json | undefined => {
    if (!isObject(config.services)) {
      if (!create) return undefined
      config.services = {}
    }
    const services = config.services as Json
    if (!isObject(services[service])) {
      if (!create) return undefined
      services[service] = {}
    }
    return services[service] as Json
  }
  return {
    get(path: string): unknown {
      const { service, key } = split(path)
      const holder = service === undefined ? config : serviceOf(service, false)
      return holder && Object.hasOwn(holder, key) ? holder[key] : undefined
    },
    set(path: string, value: unknown): void {
      const { service, key } = split(path)
      const holder = service === undefined ? config : serviceOf(service, true)!
      if (missing(value)) delete holder[key]
      else holder[key] = value
    },
    /** Whether the service of a service path is configured (always true for a global path). */
    hasHolder(path: string): boolean {
      const { service } = split(path)
      return service === undefined || serviceOf(service, false) !== undefined
    },
  }
}

const show = (v: unknown) => JSON.stringify(v)

/** The value converted to `to`, or null when it does not convert. */
function retyped(value: unknown, to: 'number' | 'string' | 'boolean'): { value: unknown } | null {
  if (typeof value === to) return { value }
  if (to === 'number' && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return { value: Number(value) }
  if (to === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return { value: String(value) }
  if (to === 'boolean' && (value === 'true' || value === 'false')) return { value: value === 'true' }
  return null
}

/** Runs one step on the configuration; a problem (field, message) when it cannot move a value. */
function applyStep(step: Step, c: ReturnType<typeof access>, touched: Set<string>): { field: string; message: string } | null {
  switch (step.kind) {
    case 'rename': {
      const value = c.get(step.from)
      if (missing(value)) return null
      const there = c.get(step.to)
      if (!missing(there) && !sameValue(there, value)) {
        return { field: step.from, message: `cannot move to ${step.to}: it holds ${show(there)} already` }
      }
      touched.add(step.from).add(step.to)
      c.set(step.to, value)
      c.set(step.from, undefined)
      return null
    }
    case 'split': {
      const value = c.get(step.from)
      if (missing(value)) return null
      const parts = typeof value === 'string' ? value.split(step.separator) : []
      if (parts.length !== step.into.length) {
        return {
          field: step.from,
          message: `${show(value)} does not split at ${show(step.separator)} into ${step.into.length} parts (${step.into.join(', ')})`,
        }
      }
      touched.add(step.from)
      c.set(step.from, undefined)
      step.into.forEach((to, i) => (touched.add(to), c.set(to, parts[i])))
      return null
    }
    case 'map': {
      const value = c.get(step.path)
      if (missing(value) || isObject(value) || Array.isArray(value)) return null
      const key = String(value)
      if (!Object.hasOwn(step.values, key)) return null
      const next = step.values[key]
      if (next === null)
        return { field: step.path, message: `${show(value)} is no longer offered and has no successor: choose another value` }
      touched.add(step.path)
      c.set(step.path, next)
      return null
    }
    case 'default': {
      if (!c.hasHolder(step.path)) return null
      const value = c.get(step.path)
      const old = missing(value) || (step.from !== undefined && sameValue(value, step.from))
      const holds = (path: string, allowed: Scalar[]) => {
        const v = c.get(path)
        return allowed.some((a) => (a === null ? missing(v) : sameValue(v, a)))
      }
      if (!old || !Object.entries(step.when ?? {}).every(([path, allowed]) => holds(path, allowed))) return null
      touched.add(step.path)
      c.set(step.path, step.to)
      return null
    }
    case 'drop':
      touched.add(step.path)
      c.set(step.path, undefined)
      return null
    case 'retype': {
      const value = c.get(step.path)
      if (missing(value)) return null
      const converted = retyped(value, step.to)
      if (!converted) return { field: step.path, message: `${show(value)} cannot be read as a ${step.to}` }
      touched.add(step.path)
      c.set(step.path, converted.value)
      return null
    }
  }
}

/** Applies `migrations` in order to a copy of `configuration`. */
export function applyMigrations<C extends object>(configuration: C, migrations: readonly Migration[]): MigrationResult<C> {
  const before = structuredClone(configuration) as Json
  const after = structuredClone(configuration) as Json
  const c = access(after)
  const touched = new Set<string>()
  const problems: MigrationProblem[] = []
  for (const m of migrations) {
    for (const step of m.steps) {
      const problem = applyStep(step, c, touched)
      if (problem) problems.push({ ...problem, migration: m.id })
    }
  }
  const was = access(before)
  const changes: ConfigurationChange[] = []
  for (const field of [...touched].sort()) {
    const [from, to] = [was.get(field), c.get(field)]
    if (sameValue(from, to)) continue
    changes.push({ field, ...(!missing(from) && { before: from }), ...(!missing(to) && { after: to }) })
  }
  return { configuration: after as C, applied: migrations.map((m) => m.id), changes, problems }
}
