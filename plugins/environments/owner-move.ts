// Moving an environment to another owner key (a team's `team:<id>` or a user's id; PUT with `team`):
// the record, with its deploy key encrypted anew for the new owner, and its entries in the derived
// lists (derived-lists.ts). A versioned write under the lock of the owner it leaves.
import { conflict, fieldError, notFound } from '@ies/server/core/errors'
import { isDuplicateKey } from '@ies/server/core/db'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import { replaceAtVersion } from '@ies/server/core/versioned-write'
import type { EnvironmentRecord } from './record.ts'
import { toStored } from './stored-form.ts'
import type { WriteParts } from './writes.ts'
import { nextUpdatedAt, VersionConflict } from './write-retry.ts'

export interface MoveParts extends Omit<WriteParts, 'indexes'> {
  /** The owner's record as `get` reads it (repository.ts). */
  get(userId: string, id: string): Promise<EnvironmentRecord | null>
}

/**
 * Moves `stored` to `ownerKey`. 409 when the new owner has an environment of that name; 400 when its
 * cloud credential is not one the new owner may use (`movedBy` says whose words the message uses).
 */
export async function moveEnvironment(
  parts: MoveParts,
  stored: EnvironmentRecord,
  ownerKey: string,
  movedBy: string,
): Promise<EnvironmentRecord> {
  if (stored.userId === ownerKey) return stored
  const { db, collection, credentialRefs, deployKeys, derived } = parts
  const from = stored.userId
  const moved = await ownerLock(db, from, async () => {
    const current = await parts.get(from, stored._id)
    if (!current) throw notFound('Environment not found')
    const { createdBy, ...rest } = current
    const creator = createdBy ?? from
    const doc: EnvironmentRecord = {
      ...rest,
      ...(creator !== ownerKey && !creator.startsWith('team:') && { createdBy: creator }),
      userId: ownerKey,
      version: (current.version ?? 0) + 1,
      updatedAt: nextUpdatedAt(current.updatedAt),
    }
    if (doc.cloudCredentialId && !(await credentialRefs.usable(doc))) {
      throw fieldError(
        'cloudCredentialId',
        `the environment's cloud credential is not one ${movedBy === ownerKey ? 'you' : 'the team'} may use; remove it (null) before moving`,
      )
    }
    if (current.deployKey) doc.deployKey = deployKeys.reseal(current.deployKey, doc._id, from, ownerKey)
    try {
      if (!(await replaceAtVersion(db, collection, current.version, toStored(doc)))) throw new VersionConflict()
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`An environment named '${doc.name}' already exists there`)
      throw err
    }
    await derived.left(from, doc._id)
    return doc
  })
  await derived.arrived(moved)
  return moved
}
