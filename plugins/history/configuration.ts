// An environment's configuration as history keeps it, the diff of two of them, and the merge patch
// that restores one. The configuration is taken from the environment as responses serve it
// (`toEnvironment` in plugins/environments/repository.ts): the one masking rule, so a deploy key is
// only ever `gitRepository.hasDeployKey` here too.
import type { Environment } from '@ies/api/schemas/environments'
import type { Configuration, FieldChange } from '@ies/api/schemas/history'

/** The members of a served environment that are not configuration: identity, state, timestamps, push status. */
const NOT_CONFIGURATION = new Set(['id', 'status', 'createdAt', 'updatedAt', 'lastPush', 'behind'])

/** Members whose change is a change of a secret or of the credential the environment uses. */
const CREDENTIAL_FIELDS = new Set(['cloudCredentialId', 'gitRepository.hasDeployKey'])

export function configurationOf(env: Environment): Configuration {
  return Object.fromEntries(Object.entries(structuredClone(env)).filter(([key]) => !NOT_CONFIGURATION.has(key)))
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The fields that differ, as dotted paths to leaves (an array is one value), in a stable order. */
export function diff(before: unknown, after: unknown, at = ''): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
    return keys.flatMap((key) => diff(before[key], after[key], at ? `${at}.${key}` : key))
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return []
  if (isObject(before) || isObject(after)) {
    // An object appeared or went: each of its leaves is a change (and a value it replaced, one more).
    const leaves = diff(isObject(before) ? before : {}, isObject(after) ? after : {}, at)
    const replaced = isObject(before) ? after : before
    return replaced === undefined ? leaves : [...leaves, isObject(before) ? { field: at, after } : { field: at, before }]
  }
  return [{ field: at, ...(before !== undefined && { before }), ...(after !== undefined && { after }) }]
}

/** True when every change is of the credential or the deploy key (and at least one secret or field changed). */
export function onlyCredentials(changes: FieldChange[], secretsChanged: string[]): boolean {
  if (changes.length === 0) return secretsChanged.length > 0
  return changes.every((c) => CREDENTIAL_FIELDS.has(c.field))
}

/** The input document a configuration stands for: what a caller would send (no `hasDeployKey`). */
function inputOf(configuration: Configuration): Record<string, unknown> {
  const input = structuredClone(configuration)
  if (isObject(input.gitRepository)) delete input.gitRepository.hasDeployKey
  return input
}

/**
 * The JSON Merge Patch (RFC 7396) that turns `current` (an environment's input document) into the
 * input of `target`: members it lacks are nulled, objects are patched member by member, anything
 * else is replaced. Applied by `PUT`'s rules, it checks only the values that change. The deploy key
 * is no member of either, so the current one is kept (or goes with the repository, if `target` has none).
 */
export function restorePatch(current: Record<string, unknown>, target: Configuration): Record<string, unknown> {
  return patchBetween(current, inputOf(target))
}

function patchBetween(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null
  for (const [key, value] of Object.entries(to)) {
    const old = from[key]
    if (isObject(old) && isObject(value)) {
      const inner = patchBetween(old, value)
      if (Object.keys(inner).length > 0) patch[key] = inner
    } else if (JSON.stringify(old) !== JSON.stringify(value)) {
      patch[key] = value
    }
  }
  return patch
}
