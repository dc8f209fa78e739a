// PUT /:id and the restore of a history entry: a JSON Merge Patch of an environment the caller may
// change, validated like a create body, written under the owner's lock, recorded in its history.
import type { FastifyError, FastifyRequest } from 'fastify'
import { ok } from '@ies/server/core/envelope'
import { detailsFromValidation, notFound, validationError, type FieldError } from '@ies/server/core/errors'
import { EnvironmentInput } from '@ies/api/schemas/environments'
import { mergePatch } from './merge-patch.ts'
import { inputOf, toEnvironment, type EnvironmentRecord } from './record.ts'
import type { DeployKeyChange } from './repository.ts'
import { schemaFailure, type RouteContext } from './route-context.ts'

const IMMUTABLE = ['name', 'globalPrefix'] as const

/**
 * A merge patch of an environment the caller may change (PUT's rules), recorded in its history.
 * `patchOf` makes the patch from the stored record (again on every retry of a lost race). `move`:
 * the team the environment goes to (null: the caller's own), after the rest is written.
 */
export async function update(
  { app, catalogCheck, checkRules, view }: RouteContext,
  request: FastifyRequest,
  id: string,
  patchOf: (stored: EnvironmentRecord) => Record<string, unknown> | Promise<Record<string, unknown>>,
  change: { kind: 'update' | 'restore'; restoredFrom?: number },
  move?: { team: string | null },
) {
  // Before the owner's write lock: reading the catalog may wait for the processor.
  const catalog = await catalogCheck.current(request.log)
  const { env: found, ...scope } = await app.environments.access(request.principal, id, 'change')
  const target = move && move.team !== (scope.team?.name ?? null) ? await app.environments.target(request.principal, move.team) : null
  const owner = found.userId
  // The organisation's rules judge the environment where it ends up (a move: in the target team).
  const team = target ? move!.team : (scope.team?.name ?? null)
  const { stored, updated, secretsChanged } = await app.environments.updating(owner, request, async (locked) => {
    const stored = await app.environments.get(owner, id)
    if (!stored) throw notFound('Environment not found')
    const patch = await patchOf(stored)

    const immutable: FieldError[] = IMMUTABLE.filter((field) => field in patch && patch[field] !== stored[field]).map((field) => ({
      field,
      message: 'cannot be changed after creation',
    }))
    if (immutable.length > 0) throw validationError(immutable)

    // Validate the merged document exactly as a create body (defaults, dropped extras, every rule).
    const merged = mergePatch(inputOf(stored), patch)
    // The values the patch changes, against the catalog; before the schema coerces `merged` in place.
    const catalogFindings = catalogCheck.update(patch, stored as unknown as Record<string, unknown>, merged, catalog, request.log)
    const validate = request.compileValidationSchema(EnvironmentInput, 'body')
    if (!validate(merged)) {
      throw schemaFailure(
        detailsFromValidation({ validation: validate.errors, validationContext: 'body' } as FastifyError),
        catalogFindings,
      )
    }
    const input = merged as EnvironmentInput
    await checkRules(owner, input, catalogFindings, stored)
    await app.policies.enforce(input, { team, catalog, log: request.log })

    const deployKey = deployKeyChange(patch)
    const updated = await locked.replace(stored, input, deployKey)
    if (!updated) throw notFound('Environment not found')
    const secretsChanged = deployKey === 'keep' || !(stored.deployKey || updated.deployKey) ? [] : ['gitRepository.deployKey']
    return { stored, updated, secretsChanged }
  })
  const result = target ? await app.environments.move(updated, target.ownerKey, request.principal.userId) : updated
  await app.history.record(request, {
    ...change,
    environment: { id: result._id, name: result.name },
    before: toEnvironment(stored),
    after: toEnvironment(result),
    secretsChanged,
  })
  return ok(request, await view(request, result, target ?? scope))
}

/** A new key when the patch carries one, removal when it nulls it (or the whole repository). */
function deployKeyChange(patch: Record<string, unknown>): DeployKeyChange {
  if (!('gitRepository' in patch)) return 'keep'
  const git = patch.gitRepository
  if (git === null) return 'remove'
  if (typeof git !== 'object' || !('deployKey' in git)) return 'keep'
  const key = (git as { deployKey: unknown }).deployKey
  if (key === null) return 'remove'
  return typeof key === 'string' ? { set: key } : 'keep'
}
