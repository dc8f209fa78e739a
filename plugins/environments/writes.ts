// Creating and changing an environment's record, under the owner's lock (`ownerLock`) and conditional
// on the version it was computed from (README.md, "Concurrent writes"); a lost race is re-read,
// re-merged and retried (`updating`). A `cloudCredentialId` a write sets is checked under the lock
// and once more after the write, so a concurrent deletion of that credential cannot succeed as well.
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { conflict } from '@ies/server/core/errors'
import { isDuplicateKey } from '@ies/server/core/db'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import { replaceAtVersion } from '@ies/server/core/versioned-write'
import type { EnvironmentInput } from '@ies/api/schemas/environments'
import type { EnvironmentRecord } from './record.ts'
import { toStored, type StoredEnvironment } from './stored-form.ts'
import { credentialRefused, type CredentialReferences } from './credential-references.ts'
import type { DeployKeys } from './deploy-keys.ts'
import type { DerivedLists } from './derived-lists.ts'
import { nextUpdatedAt, pauseBeforeRetry, UPDATE_ATTEMPTS, VersionConflict } from './write-retry.ts'

/** What happens to the stored deploy key on a write. */
export type DeployKeyChange = { set: string } | 'remove' | 'keep'

/** The writes `updating` hands its attempt: they run under the owner's lock the attempt already holds. */
export interface LockedWrites {
  replace(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null>
}

/** What a write keeps of the stored record (or sets on a new one) beside the caller's input. */
type Kept = Pick<
  EnvironmentRecord,
  'status' | 'stateKeyScope' | 'version' | 'migrations' | 'createdAt' | 'updatedAt' | 'deployKey' | 'createdBy'
>

export interface WriteParts {
  db: Db
  collection: Collection<StoredEnvironment>
  deployKeys: DeployKeys
  credentialRefs: CredentialReferences
  derived: DerivedLists
  /** The collection's indexes, created once (the unique name index makes a duplicate a 409). */
  indexes(): Promise<void>
}

export class EnvironmentWrites {
  constructor(private readonly parts: WriteParts) {}

  /** Creates an environment (400 on `cloudCredentialId` when its credential is not usable, 409 on a taken name). */
  async create(
    userId: string,
    input: EnvironmentInput,
    opts: { migrations?: string[]; createdBy?: string } = {},
  ): Promise<EnvironmentRecord> {
    const { db, collection, credentialRefs, derived } = this.parts
    await this.parts.indexes()
    return ownerLock(db, userId, async () => {
      const now = new Date()
      const id = randomUUID()
      const deployKey = input.gitRepository?.deployKey ? { set: input.gitRepository.deployKey } : 'keep'
      const doc = this.recordOf(id, userId, input, deployKey, {
        status: 'pending',
        stateKeyScope: 'environment',
        version: 1,
        migrations: opts.migrations,
        createdAt: now,
        updatedAt: now,
      })
      if (opts.createdBy && opts.createdBy !== userId) doc.createdBy = opts.createdBy
      if (doc.cloudCredentialId) await credentialRefs.assertUsable(doc)
      try {
        await collection.insertOne(toStored(doc))
      } catch (err) {
        if (isDuplicateKey(err)) throw conflict(`Environment '${input.name}' already exists`)
        throw err
      }
      if (doc.cloudCredentialId && !(await credentialRefs.usable(doc))) {
        await collection.deleteOne({ _id: id })
        throw credentialRefused(doc.provider)
      }
      await derived.written(userId, doc)
      return doc
    })
  }

  /**
   * Runs a read-merge-validate-write of one of the user's environments under the owner's lock, and
   * runs it again, re-reading and re-merging the same patch, when its `replace` lost a race to a
   * write from another replica (VersionConflict), a few times before answering 409. `request.body`
   * (the patch) is given back its first value before a retry: validating the merged document coerces
   * and fills in values in place, and arrays of the merged document are the patch's own.
   */
  updating<T>(userId: string, request: { body: unknown }, attempt: (locked: LockedWrites) => Promise<T>): Promise<T> {
    // The lock is not re-entrant: the attempt writes through `locked`, which does not take it again.
    const locked: LockedWrites = { replace: (stored, input, deployKey) => this.replaceLocked(stored, input, deployKey) }
    return ownerLock(this.parts.db, userId, async () => {
      const patch = structuredClone(request.body)
      for (let n = 1; ; n++) {
        try {
          return await attempt(locked)
        } catch (err) {
          if (!(err instanceof VersionConflict) || n >= UPDATE_ATTEMPTS) throw err
          await pauseBeforeRetry(n)
          request.body = structuredClone(patch)
        }
      }
    })
  }

  /**
   * Replaces the caller-settable fields of a stored environment (as read by `get`) with a validated
   * input, if the record still has the version `stored` was read at: VersionConflict (409) when
   * another write came first, null when the environment is gone. A `cloudCredentialId` the write
   * changes is checked again like on create (400 on the field, and nothing changes). The caller
   * holds the owner's lock (`updating`'s attempt, or `replace` in repository.ts).
   */
  async replaceLocked(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null> {
    const { db, collection, credentialRefs, derived } = this.parts
    const { _id: id, userId } = stored
    const doc = this.recordOf(id, userId, input, deployKey, {
      createdBy: stored.createdBy,
      status: stored.status,
      stateKeyScope: stored.stateKeyScope,
      version: (stored.version ?? 0) + 1,
      migrations: stored.migrations,
      createdAt: stored.createdAt,
      updatedAt: nextUpdatedAt(stored.updatedAt),
      deployKey: stored.deployKey,
    })
    const assigns = Boolean(doc.cloudCredentialId) && doc.cloudCredentialId !== stored.cloudCredentialId
    if (assigns) await credentialRefs.assertUsable(doc)
    if (!(await replaceAtVersion(db, collection, stored.version, toStored(doc)))) {
      if ((await collection.findOne({ _id: id }, { projection: { userId: 1 } }))?.userId === userId) throw new VersionConflict()
      return null
    }
    if (assigns && !(await credentialRefs.usable(doc))) {
      // A deletion of the credential on another replica came in between: take the write back.
      if (!(await replaceAtVersion(db, collection, doc.version, toStored({ ...stored, version: doc.version! + 1 })))) {
        // Written over meanwhile: at least the reference must not stay.
        await collection.updateOne(
          { _id: id, cloudCredentialId: doc.cloudCredentialId },
          { $unset: { cloudCredentialId: '' }, $inc: { version: 1 } },
        )
      }
      const now = await collection.findOne({ _id: id })
      if (now) await derived.written(userId, now)
      throw credentialRefused(doc.provider)
    }
    await derived.written(userId, doc)
    return doc
  }

  /** The record a validated input makes, with what the write keeps; the deploy key encrypted for its owner. */
  private recordOf(id: string, userId: string, input: EnvironmentInput, deployKey: DeployKeyChange, kept: Kept): EnvironmentRecord {
    // `team` says where a record is stored (its owner key), it is not stored in it.
    const { gitRepository, team: _team, ...rest } = input
    const doc: EnvironmentRecord = {
      _id: id,
      userId,
      ...(kept.createdBy && { createdBy: kept.createdBy }),
      ...rest,
      domain: input.domain ?? '',
      services: input.services ?? {},
      helmCharts: input.helmCharts ?? {},
      status: kept.status,
      createdAt: kept.createdAt,
      updatedAt: kept.updatedAt,
    }
    if (kept.stateKeyScope) doc.stateKeyScope = kept.stateKeyScope
    if (kept.version !== undefined) doc.version = kept.version
    if (kept.migrations) doc.migrations = [...kept.migrations]
    if (gitRepository) {
      const { deployKey: _plaintext, ...repository } = gitRepository
      doc.gitRepository = repository
      if (deployKey === 'keep' && kept.deployKey) doc.deployKey = kept.deployKey
      if (typeof deployKey === 'object') doc.deployKey = this.parts.deployKeys.seal(deployKey.set, id, userId)
    }
    return doc
  }
}
