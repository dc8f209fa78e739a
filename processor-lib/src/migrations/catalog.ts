// The migrations against the current catalog: every path a step moves a value to (or reads, in a
// `default` step's `when`) must be a field of the catalog, unless a later migration moves the value
// away from it again (renames, splits or drops it); a `map` or `default` value must be one the field
// accepts (a dropdown's option, a toggle's boolean, a number field's number).
import { fieldAt, valueProblem, type FieldRef } from '../contract/fields.ts'
import type { TypedCatalog } from '../contract/view.ts'
import type { MigrationFileProblem } from './parse.ts'
import { stepPaths, type Migration, type Scalar, type Step } from './steps.ts'

/** `services.<key>.enabled` is a path of every service the catalog has. */
function refAt(catalog: TypedCatalog, path: string): FieldRef | 'enabled' | null {
  const parts = path.split('.')
  if (parts.length === 3 && parts[2] === 'enabled') return Object.hasOwn(catalog.services, parts[1]) ? 'enabled' : null
  return fieldAt(catalog, path)
}

/** Patterns are not judged here: a value's type and options are. */
const noPattern = () => 'match' as const

/** Why `value` does not fit the field at `path`, or null. */
function valueMismatch(ref: FieldRef | 'enabled', value: Scalar): string | null {
  if (value === null) return null
  if (ref === 'enabled') return typeof value === 'boolean' ? null : 'must be true or false'
  return valueProblem(ref, value, noPattern)
}

/** The values a step writes to a path, by path. */
function writtenValues(step: Step): [string, Scalar][] {
  if (step.kind === 'map') return Object.values(step.values).map((v) => [step.path, v])
  if (step.kind === 'default') return [[step.path, step.to]]
  return []
}

export function migrationCatalogProblems(migrations: readonly Migration[], catalog: TypedCatalog): MigrationFileProblem[] {
  const problems: MigrationFileProblem[] = []
  migrations.forEach((m, mi) => {
    // The paths later migrations (and later steps of this one) move values away from.
    const movedLater = (si: number) =>
      new Set([
        ...m.steps.slice(si + 1).flatMap((s) => stepPaths(s).sources),
        ...migrations.slice(mi + 1).flatMap((later) => later.steps.flatMap((s) => stepPaths(s).sources)),
      ])
    m.steps.forEach((step, si) => {
      const site = m.sites[si]
      const lineOf = (path: string) => site.paths[path] ?? site.line
      const later = movedLater(si)
      for (const path of stepPaths(step).targets) {
        if (!refAt(catalog, path) && !later.has(path)) {
          problems.push({ file: m.file, line: lineOf(path), message: `${step.kind}: the catalog has no field ${path}` })
        }
      }
      for (const [path, value] of writtenValues(step)) {
        const ref = refAt(catalog, path)
        const wrong = ref && valueMismatch(ref, value)
        if (wrong)
          problems.push({ file: m.file, line: lineOf(path), message: `${step.kind}: ${JSON.stringify(value)} for ${path} ${wrong}` })
      }
    })
  })
  return problems
}
