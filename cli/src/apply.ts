// Environments as code: YAML (or JSON) files that describe environments by name, compared with the
// server and brought in line: a missing environment is created, one that differs gets a JSON Merge
// Patch of exactly the members that differ, an equal one is left alone. A file says what it sets:
// members it leaves out are kept on the server (the PUT's own merge semantics), `null` removes one.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { parseAllDocuments } from 'yaml'
import type { ApiClient, Environment, EnvironmentInput } from '@ies/api'
import { notFound } from './output.ts'
import { UsageError } from './settings.ts'

export interface Desired {
  name: string
  file: string
  config: Record<string, unknown>
}

export interface FieldChange {
  path: string
  from?: unknown
  to?: unknown
}

export type Action = 'create' | 'update' | 'unchanged'

export interface PlannedEnvironment {
  name: string
  file: string
  action: Action
  id?: string
  changes: FieldChange[]
  /** The request that makes the change: the whole body for a create, a merge patch for an update. */
  body?: Record<string, unknown>
}

/** Members the server keeps for itself; a file that names them does not change them. */
const BOOKKEEPING = new Set(['id', 'status', 'createdAt', 'updatedAt'])
/** Values never printed: write-only secrets. */
const SECRET_PATHS = /(^|\.)(deployKey|password|token|privateKey|secret\w*)$/i

const FILE_TYPES = /\.(ya?ml|json)$/i

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The files of `-f`: the file itself, or a folder's `.yaml`, `.yml` and `.json` files in name order. */
export function listFiles(target: string): string[] {
  let stat
  try {
    stat = statSync(target)
  } catch {
    throw new UsageError(`-f ${target}: no such file or folder`)
  }
  if (!stat.isDirectory()) return [target]
  const files = readdirSync(target)
    .filter((name) => FILE_TYPES.test(name))
    .sort()
    .map((name) => path.join(target, name))
  if (files.length === 0) throw new UsageError(`-f ${target}: the folder has no .yaml, .yml or .json file`)
  return files
}

/** Every environment the files describe (several per file with `---`); names must be unique. */
export function loadDesired(targets: string[]): Desired[] {
  const out: Desired[] = []
  const seen = new Map<string, string>()
  for (const file of targets.flatMap(listFiles)) {
    const docs = parseAllDocuments(readFileSync(file, 'utf8'))
    const list = Array.isArray(docs) ? docs : [docs]
    list.forEach((doc, index) => {
      const where = list.length > 1 ? `${file} (document ${index + 1})` : file
      if (doc.errors.length > 0) throw new UsageError(`${where}: ${doc.errors[0]!.message}`)
      const config = doc.toJS() as unknown
      if (config === null || config === undefined) return
      if (!isObject(config)) throw new UsageError(`${where}: an environment must be a mapping (name, provider, region, ...)`)
      if (typeof config.name !== 'string' || config.name === '') throw new UsageError(`${where}: name is required`)
      const earlier = seen.get(config.name)
      if (earlier) throw new UsageError(`${where}: environment ${config.name} is also described in ${earlier}`)
      seen.set(config.name, where)
      out.push({ name: config.name, file: where, config })
    })
  }
  return out
}

/** Absent as the server stores it: a removed `domain` reads back as `""`, removed maps as `{}`. */
const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)

/**
 * The members of `desired` that differ from `current`, and the merge patch that sets them. Objects
 * are compared member by member (what the file leaves out is kept), arrays and scalars as a whole.
 */
export function diff(
  desired: Record<string, unknown>,
  current: Record<string, unknown>,
  prefix = '',
): { changes: FieldChange[]; patch?: Record<string, unknown> } {
  const changes: FieldChange[] = []
  const patch: Record<string, unknown> = {}
  for (const [key, want] of Object.entries(desired)) {
    if (!prefix && BOOKKEEPING.has(key)) continue
    const at = prefix ? `${prefix}.${key}` : key
    const have = current[key]
    if (want === null) {
      if (!isEmpty(have)) {
        changes.push({ path: at, from: have })
        patch[key] = null
      }
    } else if (isObject(want) && isObject(have)) {
      const inner = diff(want, have, at)
      if (inner.patch) {
        changes.push(...inner.changes)
        patch[key] = inner.patch
      }
    } else if (!isDeepStrictEqual(want, have)) {
      changes.push({ path: at, ...(have !== undefined && { from: have }), to: want })
      patch[key] = want
    }
  }
  return { changes, ...(changes.length > 0 && { patch }) }
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, isObject(v) ? withoutNulls(v) : v]),
  )
}

/** Every value of a new environment by its dotted path (objects opened, arrays and empty objects whole). */
function leaves(value: Record<string, unknown>, prefix = ''): FieldChange[] {
  return Object.entries(value).flatMap(([key, v]) => {
    const at = prefix ? `${prefix}.${key}` : key
    return isObject(v) && Object.keys(v).length > 0 ? leaves(v, at) : [{ path: at, to: v }]
  })
}

/** What the server holds, in the shape a file compares with: the deploy key counts as set when the server has one. */
function comparable(env: Environment, desired: Record<string, unknown>): Record<string, unknown> {
  const current: Record<string, unknown> = { ...env }
  const git = env.gitRepository
  const wantGit = desired.gitRepository
  if (git && isObject(wantGit) && typeof wantGit.deployKey === 'string' && git.hasDeployKey) {
    // Write-only: the server cannot say which key it holds, so a file's key is applied only where none is set.
    current.gitRepository = { ...git, deployKey: wantGit.deployKey }
  }
  return current
}

/**
 * `cloudCredential: <name>` in a file names one of the caller's credentials (ids differ from server to
 * server, names are what a repository can hold); it becomes `cloudCredentialId`. `null` unassigns. An
 * environment of a team (`team:` in the file) takes the team's credential of that name.
 */
async function withCredentialIds(client: ApiClient, desired: Desired[]): Promise<Desired[]> {
  if (!desired.some((d) => 'cloudCredential' in d.config)) return desired
  const byName = new Map((await client.allCredentials()).map((c) => [keyOf(c.team, c.name), c.id]))
  return desired.map((d) => {
    if (!('cloudCredential' in d.config)) return d
    const { cloudCredential: name, ...rest } = d.config
    if (name !== null && typeof name !== 'string') throw new UsageError(`${d.file}: cloudCredential must be the name of a cloud credential`)
    const id = name === null ? null : byName.get(keyOf(d.config.team, name))
    if (id === undefined) throw notFound('Cloud credential', `${String(name)} (${d.file})`)
    return { ...d, config: { ...rest, cloudCredentialId: id } }
  })
}

/** Environments are matched by team and name: the same name may be the caller's own and a team's. */
const keyOf = (team: unknown, name: string) => `${typeof team === 'string' ? team : ''}/${name}`

export async function plan(client: ApiClient, files: Desired[]): Promise<PlannedEnvironment[]> {
  const desired = await withCredentialIds(client, files)
  const existing = new Map((await client.allEnvironments()).map((e) => [keyOf(e.team, e.name), e.id]))
  const out: PlannedEnvironment[] = []
  for (const want of desired) {
    const id = existing.get(keyOf(want.config.team, want.name))
    if (!id) {
      // A new environment has nothing to remove: `null` members (merge-patch removals) are left out.
      const body = withoutNulls(want.config)
      const changes = leaves(Object.fromEntries(Object.entries(body).filter(([key]) => !BOOKKEEPING.has(key))))
      out.push({ name: want.name, file: want.file, action: 'create', changes, body })
      continue
    }
    const current = await client.getEnvironment(id)
    const { changes, patch } = diff(want.config, comparable(current, want.config))
    out.push({ name: want.name, file: want.file, id, action: patch ? 'update' : 'unchanged', changes, ...(patch && { body: patch }) })
  }
  return out
}

/** Carries out a plan in order, setting the id of each created environment; stops at the first refusal (its error propagates). */
export async function execute(client: ApiClient, planned: PlannedEnvironment[], onDone: (p: PlannedEnvironment) => void): Promise<void> {
  for (const p of planned) {
    if (p.action === 'create') p.id = (await client.createEnvironment(p.body as EnvironmentInput)).id
    else if (p.action === 'update') await client.updateEnvironment(p.id!, p.body!)
    onDone(p)
  }
}

/** A value for printing and JSON: write-only secrets (at any depth) replaced by a marker. */
function masked(value: unknown, at: string): unknown {
  if (SECRET_PATHS.test(at)) return value === undefined || value === null ? value : '(write-only)'
  if (Array.isArray(value)) return value.map((v) => masked(v, at))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, `${at}.${k}`)]))
  return value
}

export function redactChange(change: FieldChange): FieldChange {
  return {
    path: change.path,
    ...('from' in change && { from: masked(change.from, change.path) }),
    ...('to' in change && { to: masked(change.to, change.path) }),
  }
}

/** The printable plan entry (no request body: it may carry a write-only value). */
export function publicEntry(p: PlannedEnvironment) {
  return { name: p.name, file: p.file, action: p.action, ...(p.id && { id: p.id }), changes: p.changes.map(redactChange) }
}
