// The kinds of migration step and their shapes: one source for the parser (parse.ts), the engine
// (apply.ts) and the catalog check (catalog.ts). A step is a one-key mapping naming its kind.

/** The value types `retype` converts to. */
export const RETYPE_TARGETS = ['number', 'string', 'boolean'] as const
export type RetypeTarget = (typeof RETYPE_TARGETS)[number]

/** A stored value a condition or a `default` step compares with; `null` also matches a missing value. */
export type Scalar = string | number | boolean | null

export type Step =
  /** Moves the value at `from` to `to` (nothing when `from` holds none). */
  | { kind: 'rename'; from: string; to: string }
  /** Cuts the text at `from` at `separator` into exactly as many parts as `into` names, one per path, and removes `from`. */
  | { kind: 'split'; from: string; into: string[]; separator: string }
  /** Replaces the stored values named in `values` by theirs; a value mapped to `null` has no successor and is reported. */
  | { kind: 'map'; path: string; values: Record<string, Scalar> }
  /**
   * Sets `to` where the value is missing or (with `from`) is the old default `from`, and where every
   * path of `when` holds one of its listed values (`null`: missing). Only inside a service the
   * configuration has, for a service path.
   */
  | { kind: 'default'; path: string; from?: Scalar; to: Scalar; when?: Record<string, Scalar[]> }
  /** Removes the value at `path`. */
  | { kind: 'drop'; path: string }
  /** Converts the value at `path` to `to`; a value that does not convert is reported. */
  | { kind: 'retype'; path: string; to: RetypeTarget }

export type StepKind = Step['kind']

/** Where a step and its paths were written (1-based lines of the migration file). */
export interface StepSite {
  line: number
  /** The line of each path the step names, by path. */
  paths: Record<string, number>
}

export interface Migration {
  id: string
  description: string
  /** The migration file, relative to the templates root (`migrations/0001-....yaml`). */
  file: string
  steps: Step[]
  sites: StepSite[]
}

/** The paths a step writes or reads as the current catalog's (its target paths), and the ones it moves away from. */
export function stepPaths(step: Step): { targets: string[]; sources: string[] } {
  switch (step.kind) {
    case 'rename':
      return { targets: [step.to], sources: [step.from] }
    case 'split':
      return { targets: step.into, sources: [step.from] }
    case 'drop':
      return { targets: [], sources: [step.path] }
    case 'default':
      return { targets: [step.path, ...Object.keys(step.when ?? {})], sources: [] }
    case 'map':
    case 'retype':
      return { targets: [step.path], sources: [] }
  }
}

/**
 * A configuration path a step may name: a global field (`region`) or a service field
 * (`services.<key>.<field>`). Never anything else of the environment (its Git repository, deploy key).
 */
export const PATH_RULE = /^(?:[A-Za-z][A-Za-z0-9_]*|services\.[A-Za-z0-9_-]+\.[A-Za-z][A-Za-z0-9_]*)$/

/** The ids: lowercase letters, digits and hyphens, starting with a digit or letter (the file name without `.yaml` by convention). */
export const ID_RULE = /^[a-z0-9][a-z0-9-]{0,99}$/
