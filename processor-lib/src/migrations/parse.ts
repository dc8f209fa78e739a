// Reads migration files (YAML, the `yaml` package, keeping each node's line) into Migrations, or
// says at which file and line one is not a migration. The shape of a file:
//
//   id: 0001-eks-endpoint-private
//   description: what changed in the templates and what the migration does to stored values
//   steps:
//     - rename: { from: services.eks.nodeCount, to: services.eks.nodeDesiredSize }
//     - split: { from: services.x.instance, into: [services.x.family, services.x.size], separator: "." }
//     - map: { path: services.rds.engineVersion, values: { "16.6": "17", "15": null } }
//     - default: { path: services.eks.endpointPublicAccess, from: true, to: false, when: { services.eks.publicAccessCidrs: ["", null] } }
//     - drop: { path: services.eks.legacyFlag }
//     - retype: { path: services.rds.storageGb, to: number }
import YAML, { isMap, isScalar, isSeq, LineCounter, type Node, type Pair, type YAMLMap } from 'yaml'
import { ID_RULE, PATH_RULE, RETYPE_TARGETS, type Migration, type RetypeTarget, type Scalar, type Step, type StepSite } from './steps.ts'

/** What is wrong with a migration file, where. */
export interface MigrationFileProblem {
  file: string
  /** 1-based; 0 for the file as a whole. */
  line: number
  message: string
}

export interface ParsedMigrations {
  /** In file-name order; a file with a problem is left out. */
  migrations: Migration[]
  problems: MigrationFileProblem[]
}

/** The folder of the templates tree that holds the migration files. */
export const MIGRATIONS_DIR = 'migrations'

/** Whether a templates-relative path is a migration file. */
export const isMigrationFile = (file: string) => /^migrations\/[^/]+\.ya?ml$/.test(file)

/** Refused with the line of the node at fault. */
class ShapeError extends Error {
  constructor(
    readonly node: Node | null | undefined,
    message: string,
  ) {
    super(message)
  }
}

const STEP_KEYS: Record<Step['kind'], { required: string[]; optional: string[] }> = {
  rename: { required: ['from', 'to'], optional: [] },
  split: { required: ['from', 'into', 'separator'], optional: [] },
  map: { required: ['path', 'values'], optional: [] },
  default: { required: ['path', 'to'], optional: ['from', 'when'] },
  drop: { required: ['path'], optional: [] },
  retype: { required: ['path', 'to'], optional: [] },
}
const KINDS = Object.keys(STEP_KEYS) as Step['kind'][]
/** Global fields fixed at creation (they name the environment's resources): no step may move them. */
const FIXED = ['name', 'globalPrefix']

/** Parses every migration file of `files` (templates-relative paths), in file-name order. */
export function parseMigrations(files: readonly { path: string; content: Buffer | string }[]): ParsedMigrations {
  const ordered = files.filter((f) => isMigrationFile(f.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const migrations: Migration[] = []
  const problems: MigrationFileProblem[] = []
  const seen = new Map<string, string>()
  for (const f of ordered) {
    const parsed = parseMigration(f.path, f.content.toString())
    if ('problem' in parsed) {
      problems.push(parsed.problem)
      continue
    }
    const first = seen.get(parsed.migration.id)
    if (first) {
      problems.push({ file: f.path, line: 1, message: `id "${parsed.migration.id}" is already the id of ${first}` })
      continue
    }
    seen.set(parsed.migration.id, f.path)
    migrations.push(parsed.migration)
  }
  return { migrations, problems }
}

/** One migration file, or its first problem. */
export function parseMigration(file: string, text: string): { migration: Migration } | { problem: MigrationFileProblem } {
  const lines = new LineCounter()
  const doc = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const lineOf = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : 0)
  if (doc.errors.length > 0) {
    const err = doc.errors[0]
    return { problem: { file, line: lines.linePos(err.pos[0]).line, message: `not YAML: ${err.message.split('\n')[0]}` } }
  }
  try {
    const root = doc.contents
    if (!isMap(root)) throw new ShapeError(root, 'a migration is a mapping with id, description and steps')
    const top = fieldsOf(root, ['id', 'description', 'steps'], [])
    const id = text1(top.id, 'id')
    if (!ID_RULE.test(id)) throw new ShapeError(top.id, `id "${id}" must be lowercase letters, digits and hyphens`)
    const description = text1(top.description, 'description')
    if (!isSeq(top.steps) || top.steps.items.length === 0) throw new ShapeError(top.steps, 'steps must be a non-empty list')
    const steps: Step[] = []
    const sites: StepSite[] = []
    for (const item of top.steps.items as Node[]) {
      const { step, paths } = stepOf(item, lineOf)
      steps.push(step)
      sites.push({ line: lineOf(item), paths })
    }
    return { migration: { id, description, file, steps, sites } }
  } catch (err) {
    if (!(err instanceof ShapeError)) throw err
    return { problem: { file, line: lineOf(err.node) || 1, message: err.message } }
  }
}

/** A mapping's values by key, refusing a missing required key and an unknown one. */
function fieldsOf(map: YAMLMap, required: string[], optional: string[], what = 'the migration'): Record<string, Node | undefined> {
  const out: Record<string, Node | undefined> = {}
  for (const pair of map.items as Pair<Node, Node>[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : ''
    if (!required.includes(key) && !optional.includes(key)) {
      throw new ShapeError(pair.key, `${what} has no "${key}"; it takes ${[...required, ...optional].join(', ')}`)
    }
    out[key] = pair.value ?? undefined
  }
  const missing = required.find((k) => !(k in out))
  if (missing) throw new ShapeError(map, `${what} needs "${missing}"`)
  return out
}

function text1(node: Node | undefined, what: string): string {
  if (!isScalar(node) || typeof node.value !== 'string' || node.value.trim() === '')
    throw new ShapeError(node, `${what} must be a non-empty text`)
  return node.value
}

function scalarOf(node: Node | undefined, what: string): Scalar {
  if (!isScalar(node) || !(node.value === null || ['string', 'number', 'boolean'].includes(typeof node.value))) {
    throw new ShapeError(node, `${what} must be a text, a number, true, false or null`)
  }
  return node.value as Scalar
}

function stepOf(item: Node, lineOf: (n: Node | null | undefined) => number): { step: Step; paths: Record<string, number> } {
  if (!isMap(item) || item.items.length !== 1) {
    throw new ShapeError(item, `a step is a mapping with one key, its kind: ${KINDS.join(', ')}`)
  }
  const pair = item.items[0] as Pair<Node, Node>
  const kind = (isScalar(pair.key) ? String(pair.key.value) : '') as Step['kind']
  if (!KINDS.includes(kind)) throw new ShapeError(pair.key, `unknown step "${String(kind)}"; a step is one of ${KINDS.join(', ')}`)
  if (!isMap(pair.value)) throw new ShapeError(pair.value ?? item, `${kind} takes a mapping: ${STEP_KEYS[kind].required.join(', ')}`)
  const f = fieldsOf(pair.value, STEP_KEYS[kind].required, STEP_KEYS[kind].optional, `a ${kind} step`)
  const paths: Record<string, number> = {}
  const pathAt = (node: Node | undefined, what: string): string => {
    const p = text1(node, what)
    if (!PATH_RULE.test(p))
      throw new ShapeError(node, `${what} "${p}" is not a configuration path (a global field or services.<key>.<field>)`)
    if (FIXED.includes(p)) throw new ShapeError(node, `${what} "${p}" cannot change after an environment is created`)
    paths[p] ??= lineOf(node)
    return p
  }
  switch (kind) {
    case 'rename': {
      const step = { kind, from: pathAt(f.from, 'from'), to: pathAt(f.to, 'to') }
      if (step.from === step.to) throw new ShapeError(f.to, 'from and to are the same path')
      return { step, paths }
    }
    case 'split': {
      if (!isSeq(f.into) || f.into.items.length < 2) throw new ShapeError(f.into, 'into must list at least two paths')
      const into = (f.into.items as Node[]).map((n) => pathAt(n, 'into'))
      const separator = text1(f.separator, 'separator')
      return { step: { kind, from: pathAt(f.from, 'from'), into, separator }, paths }
    }
    case 'map': {
      const path = pathAt(f.path, 'path')
      if (!isMap(f.values) || f.values.items.length === 0)
        throw new ShapeError(f.values, 'values must map old values to new ones (null: no successor)')
      const values: Record<string, Scalar> = {}
      for (const v of f.values.items as Pair<Node, Node>[]) {
        const key = scalarOf(v.key, 'an old value')
        values[String(key)] = scalarOf(v.value ?? undefined, `the new value of ${JSON.stringify(key)}`)
      }
      return { step: { kind, path, values }, paths }
    }
    case 'default': {
      const step: Step = { kind, path: pathAt(f.path, 'path'), to: scalarOf(f.to, 'to') }
      if (f.from !== undefined) step.from = scalarOf(f.from, 'from')
      if (f.when !== undefined) {
        if (!isMap(f.when)) throw new ShapeError(f.when, 'when maps paths to the values they must hold (null: missing)')
        step.when = {}
        for (const c of f.when.items as Pair<Node, Node>[]) {
          const at = pathAt(c.key, 'a when path')
          const list = c.value
          if (!isSeq(list) || list.items.length === 0) throw new ShapeError(list ?? c.key, `when ${at} must list the values it may hold`)
          step.when[at] = (list.items as Node[]).map((n) => scalarOf(n, `a value of when ${at}`))
        }
      }
      return { step, paths }
    }
    case 'drop':
      return { step: { kind, path: pathAt(f.path, 'path') }, paths }
    case 'retype': {
      const to = text1(f.to, 'to') as RetypeTarget
      if (!RETYPE_TARGETS.includes(to)) throw new ShapeError(f.to, `to must be one of ${RETYPE_TARGETS.join(', ')}`)
      return { step: { kind, path: pathAt(f.path, 'path'), to }, paths }
    }
  }
}
