// Environments in MongoDB (collection `environments`), always scoped by the owning user. The deploy
// key is encrypted before it reaches the database and decrypted only through getDeployKey.
//
// Concurrent writes (README.md, "Concurrent writes"): every record carries a `version`; a write
// replaces the record only if it still has the version it was computed from, and a lost race is
// re-read, re-merged and retried (`updating`). Writes of one user's environments and deletions of
// that user's cloud credentials also run one at a time in this process (`ownerLock`), which is what
// keeps them correct on FerretDB, whose conditional writes are not atomic.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Collection, Db } from 'mongodb'
import type { KeyRing } from '@ies/server/core/crypto'
import { AppError, conflict, fieldError, isDatabaseUnavailable, notFound, SPEC_CODES, type FieldError } from '@ies/server/core/errors'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import { storedProblems } from './catalog-check.ts'
import { isDuplicateKey } from '@ies/server/core/db'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import { replaceAtVersion } from '@ies/server/core/versioned-write'
import { reencryptField, type ReencryptResult } from '@ies/server/core/reencrypt'
import { migrateEnvironment } from '@ies/server/jobs/generation/migrations'
import type { Migration } from '@ies/processor-lib/migrations/index'
import type { TeamsRepository } from '../teams/repository.ts'
import type { EnvironmentAction } from '@ies/api/schemas/teams'
import type { Caller, Scope } from '../teams/scopes.ts'
import type { Environment, EnvironmentInput } from '@ies/api/schemas/environments'
import { DEPLOY_KEY_PURPOSE, toEnvironment, type EnvironmentRecord } from './record.ts'
import { fromStored, toStored, type StoredEnvironment } from './stored-form.ts'
import { EnvironmentSummaries } from './summaries.ts'
import type { Summarized } from './summary-selection.ts'
import { DriftScheduledList, type DriftScheduled } from './drift-scheduled.ts'
import { CredentialReferences, credentialRefused } from './credential-references.ts'
import { EnvironmentLists, type ListOptions, type ListRow } from './lists.ts'

/** What happens to the stored deploy key on a write. */
export type DeployKeyChange = { set: string } | 'remove' | 'keep'

/** The writes `updating` hands its attempt: they run under the owner's lock the attempt already holds. */
export interface LockedWrites {
  replace(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null>
}

/** An environment the caller may act on, with their role and its team (plugins/teams/scopes.ts). */
export interface Accessed extends Scope {
  env: EnvironmentRecord
}

export type EnvironmentDeletedHook = (env: EnvironmentRecord) => Promise<void> | void

/** Called after a push stored what the templates' migrations made of an environment (`storeMigrated`). */
export type EnvironmentMigratedHook = (
  before: Environment,
  after: Environment,
  by: { userId: string; jobId?: string },
) => Promise<void> | void

/** A write computed from a version of the record that is no longer the stored one. */
export class VersionConflict extends AppError {
  constructor() {
    super(409, SPEC_CODES.conflict, 'The environment was changed by another request at the same time; try again')
  }
}

/** How often `updating` runs a read-merge-write that keeps losing version races, and its pause. */
const UPDATE_ATTEMPTS = 5
const RETRY_PAUSE_MS = 20

export class EnvironmentRepository {
  readonly collection: Collection<StoredEnvironment>
  /** The cloud credentials an environment references (plugins/cloud-credentials), read only to check them. */
  private readonly credentialRefs: CredentialReferences
  private readonly lists: EnvironmentLists
  private indexesReady?: Promise<void>
  private readonly deletedHooks: EnvironmentDeletedHook[] = []
  private readonly migratedHooks: EnvironmentMigratedHook[] = []
  /** Per user: what a list filters, sorts, counts and pages (summaries.ts). */
  readonly summaries: EnvironmentSummaries
  /** The environments checked for drift on a schedule (drift-scheduled.ts). */
  private readonly driftList: DriftScheduledList
  /** When each user's list page was last compared with its records here (see `listRows`). */
  private readonly verifiedAt = new Map<string, number>()

  constructor(
    private readonly db: Db,
    private readonly keys: KeyRing,
    /** Who may do what (`app.teams`); absent where no request is served (scripts). */
    readonly teams?: Pick<TeamsRepository, 'check' | 'scopes' | 'target'>,
  ) {
    this.collection = db.collection<StoredEnvironment>('environments')
    this.credentialRefs = new CredentialReferences(db)
    this.driftList = new DriftScheduledList(db)
    this.summaries = new EnvironmentSummaries(db, this.collection, (userId, fn) => ownerLock(db, userId, fn))
    this.lists = new EnvironmentLists(this.collection, this.summaries, (caller, team) => this.scopes(caller, team))
  }

  /** Creates the indexes once; the unique one is what makes a duplicate name a 409 under concurrency. */
  indexes(): Promise<void> {
    this.indexesReady ??= (async () => {
      await this.collection.createIndex({ userId: 1, name: 1 }, { unique: true, name: 'user_name_unique' })
      await this.collection.createIndex({ userId: 1, createdAt: -1 }, { name: 'user_created' })
      await this.collection.createIndex({ userId: 1, cloudCredentialId: 1 }, { name: 'user_credential' })
    })().catch((err) => {
      this.indexesReady = undefined
      throw err
    })
    return this.indexesReady
  }

  /**
   * Runs before an environment is deleted, e.g. to remove its jobs and stored archives. A hook that
   * throws stops the deletion (the environment stays, the caller may retry).
   */
  onEnvironmentDeleted(hook: EnvironmentDeletedHook): void {
    this.deletedHooks.push(hook)
  }

  /** Registers what runs after a push stored an environment's migrated configuration (the history). */
  onEnvironmentMigrated(hook: EnvironmentMigratedHook): void {
    this.migratedHooks.push(hook)
  }

  private deployKeyContext(id: string, userId: string) {
    return { purpose: DEPLOY_KEY_PURPOSE, recordId: id, ownerId: userId }
  }

  /** One page of the caller's environments as list rows, and their total (lists.ts). */
  listRows(caller: Caller, opts: ListOptions): Promise<{ items: ListRow[]; total: number }> {
    return this.lists.rows(caller, opts)
  }

  /**
   * One of the caller's environments for an action: its record, the caller's role and its team.
   * 404 when the caller may not see it, 403 when their role does not allow the action (access.ts).
   * Read by `_id` alone, as `get`.
   */
  async access(caller: Caller, id: string, action: EnvironmentAction): Promise<Accessed> {
    const stored = await this.collection.findOne({ _id: id })
    const scope = await this.teamsOrFail().check(caller, stored?.userId, action)
    return { ...scope, env: await this.credentialRefs.withUsable(fromStored(stored!)) }
  }

  /** The caller's own scope and their teams' (one team's when `team` is named). */
  scopes(caller: Caller, team?: string): Promise<Scope[]> {
    return this.teamsOrFail().scopes(caller, team)
  }

  /** Where an environment the caller creates or moves goes: their own, or a team they are an editor of. */
  target(caller: Caller, team: string | null | undefined): Promise<Scope> {
    return this.teamsOrFail().target(caller, team)
  }

  private teamsOrFail() {
    if (!this.teams) throw new Error('the environment repository was made without teams: it serves no request')
    return this.teams
  }

  /** One page of the user's environments and their total (lists.ts). */
  list(userId: string, opts: ListOptions): Promise<{ items: EnvironmentRecord[]; total: number }> {
    return this.lists.page(userId, opts)
  }

  /**
   * The stored record of one of the user's environments, or null (also for another user's id). A
   * `cloudCredentialId` whose credential no longer exists (a record from before deletions checked
   * for users) is left out: the environment reads as having no credential, and its next write drops
   * the stale id.
   */
  async get(userId: string, id: string): Promise<EnvironmentRecord | null> {
    // By `_id` alone, the owner checked here (the one filter FerretDB answers from an index).
    const stored = await this.collection.findOne({ _id: id })
    if (!stored || stored.userId !== userId) return null
    return this.credentialRefs.withUsable(fromStored(stored))
  }

  /** The records of `ids` as stored; only for ids taken from the caller's own list rows (lists.ts). */
  records(ids: readonly string[]): Promise<EnvironmentRecord[]> {
    return this.lists.records(ids)
  }

  /**
   * An environment for a job, whoever queued it (the request that queued it went through `access`),
   * or null when it is gone.
   */
  async forJob(id: string): Promise<EnvironmentRecord | null> {
    const stored = await this.collection.findOne({ _id: id })
    return stored && this.credentialRefs.withUsable(fromStored(stored))
  }

  /** The decrypted private deploy key, or null when the environment has none (or is not the owner's). For jobs only. */
  async getDeployKey(userId: string, id: string): Promise<string | null> {
    const doc = await this.get(userId, id)
    if (!doc?.deployKey) return null
    return this.keys.decryptSecret(doc.deployKey, this.deployKeyContext(id, userId))
  }

  /**
   * Creates an environment. Its credential (when it names one) is checked again under the owner's
   * lock and once more after the insert, so a concurrent deletion of that credential cannot succeed
   * as well (400 on `cloudCredentialId` then, and nothing is stored).
   */
  async create(
    userId: string,
    input: EnvironmentInput,
    opts: { migrations?: string[]; createdBy?: string } = {},
  ): Promise<EnvironmentRecord> {
    const { migrations, createdBy } = opts
    await this.indexes()
    return ownerLock(this.db, userId, async () => {
      const now = new Date()
      const id = randomUUID()
      const doc = this.recordOf(id, userId, input, input.gitRepository?.deployKey ? { set: input.gitRepository.deployKey } : 'keep', {
        status: 'pending',
        stateKeyScope: 'environment',
        version: 1,
        migrations,
        createdAt: now,
        updatedAt: now,
      })
      if (createdBy && createdBy !== userId) doc.createdBy = createdBy
      if (doc.cloudCredentialId) await this.credentialRefs.assertUsable(doc)
      try {
        await this.collection.insertOne(toStored(doc))
      } catch (err) {
        if (isDuplicateKey(err)) throw conflict(`Environment '${input.name}' already exists`)
        throw err
      }
      if (doc.cloudCredentialId && !(await this.credentialRefs.usable(doc))) {
        await this.collection.deleteOne({ _id: id })
        throw credentialRefused(doc.provider)
      }
      await this.written(userId, doc)
      return doc
    })
  }

  /**
   * Runs a read-merge-validate-write of one of the user's environments (`get`, then `replace` of
   * what it read) under the owner's lock, and runs it again, re-reading and re-merging the same
   * patch, when `replace` lost a race to a write from another replica (VersionConflict), a few
   * times before answering 409. `request.body` (the patch) is given back its first value before a
   * retry: validating the merged document coerces and fills in values in place, and arrays of the
   * merged document are the patch's own.
   */
  updating<T>(userId: string, request: { body: unknown }, attempt: (locked: LockedWrites) => Promise<T>): Promise<T> {
    // The lock is not re-entrant: the attempt writes through `locked`, which does not take it again.
    const locked: LockedWrites = { replace: (stored, input, deployKey) => this.replaceLocked(stored, input, deployKey) }
    return ownerLock(this.db, userId, async () => {
      const patch = structuredClone(request.body)
      for (let n = 1; ; n++) {
        try {
          return await attempt(locked)
        } catch (err) {
          if (!(err instanceof VersionConflict) || n >= UPDATE_ATTEMPTS) throw err
          await sleep(RETRY_PAUSE_MS * n * (0.5 + Math.random()))
          request.body = structuredClone(patch)
        }
      }
    })
  }

  /**
   * Replaces the caller-settable fields of a stored environment (as read by `get`) with a validated
   * input, if the record still has the version `stored` was read at: VersionConflict (409) when
   * another write came first, null when the environment is gone. A `cloudCredentialId` the write
   * changes is checked again like on create (400 on the field, and nothing changes).
   */
  replace(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null> {
    return ownerLock(this.db, stored.userId, () => this.replaceLocked(stored, input, deployKey))
  }

  /** `replace` for a caller holding the owner's lock (`updating`'s attempt). */
  private async replaceLocked(
    stored: EnvironmentRecord,
    input: EnvironmentInput,
    deployKey: DeployKeyChange,
  ): Promise<EnvironmentRecord | null> {
    const { _id: id, userId } = stored
    const doc = this.recordOf(id, userId, input, deployKey, {
      createdBy: stored.createdBy,
      status: stored.status,
      stateKeyScope: stored.stateKeyScope,
      version: (stored.version ?? 0) + 1,
      migrations: stored.migrations,
      createdAt: stored.createdAt,
      updatedAt: new Date(Math.max(Date.now(), stored.updatedAt.getTime() + 1)),
      deployKey: stored.deployKey,
    })
    const assigns = Boolean(doc.cloudCredentialId) && doc.cloudCredentialId !== stored.cloudCredentialId
    if (assigns) await this.credentialRefs.assertUsable(doc)
    if (!(await replaceAtVersion(this.db, this.collection, stored.version, toStored(doc)))) {
      if ((await this.collection.findOne({ _id: id }, { projection: { userId: 1 } }))?.userId === userId) throw new VersionConflict()
      return null
    }
    if (assigns && !(await this.credentialRefs.usable(doc))) {
      // A deletion of the credential on another replica came in between: take the write back.
      if (!(await replaceAtVersion(this.db, this.collection, doc.version, toStored({ ...stored, version: doc.version! + 1 })))) {
        // Written over meanwhile: at least the reference must not stay.
        await this.collection.updateOne(
          { _id: id, cloudCredentialId: doc.cloudCredentialId },
          { $unset: { cloudCredentialId: '' }, $inc: { version: 1 } },
        )
      }
      const now = await this.collection.findOne({ _id: id })
      if (now) await this.written(userId, now)
      throw credentialRefused(doc.provider)
    }
    await this.written(userId, doc)
    return doc
  }

  /**
   * Runs a summary update after a write that is already stored: when the database fails it, the
   * write still stands (the summary marked itself for a rebuild on the user's next list); any other
   * failure is a bug and is thrown.
   */
  /** Keeps what is derived from a written record: the owner's list summary and the drift schedule's list. */
  private async written(userId: string, doc: Summarized & Pick<EnvironmentRecord, 'driftCheckHours'>): Promise<void> {
    await this.summarize(userId, () => this.summaries.put(doc))
    await this.summarize(userId, () => this.driftList.keep(doc))
  }

  private async summarize(userId: string, update: () => Promise<void>): Promise<void> {
    try {
      await update()
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err
    }
  }

  private recordOf(
    id: string,
    userId: string,
    input: EnvironmentInput,
    deployKey: DeployKeyChange,
    kept: Pick<
      EnvironmentRecord,
      'status' | 'stateKeyScope' | 'version' | 'migrations' | 'createdAt' | 'updatedAt' | 'deployKey' | 'createdBy'
    >,
  ): EnvironmentRecord {
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
      if (typeof deployKey === 'object') doc.deployKey = this.keys.encryptSecret(deployKey.set, this.deployKeyContext(id, userId))
    }
    return doc
  }

  /**
   * Stores what the templates' migrations the environment has not run make of its configuration,
   * and their ids: a versioned write of the record as read now (a change made since the push is
   * migrated too), retried on a lost race like `updating`. MIGRATION_FAILED when a value cannot be moved.
   */
  async storeMigrated(userId: string, id: string, all: readonly Migration[], by: { userId: string; jobId?: string }): Promise<void> {
    await ownerLock(this.db, userId, async () => {
      for (let n = 1; ; n++) {
        const stored = await this.get(userId, id)
        if (!stored) return
        const migrated = migrateEnvironment(stored, all)
        if (migrated.applied.length === 0) return
        const doc: EnvironmentRecord = {
          ...migrated.env,
          migrations: migrated.migrations,
          version: (stored.version ?? 0) + 1,
          updatedAt: new Date(Math.max(Date.now(), stored.updatedAt.getTime() + 1)),
        }
        if (await replaceAtVersion(this.db, this.collection, stored.version, toStored(doc))) {
          await this.written(userId, doc)
          for (const hook of this.migratedHooks) await hook(toEnvironment(stored), toEnvironment(doc), by)
          return
        }
        if (n >= UPDATE_ATTEMPTS) throw new VersionConflict()
        await sleep(RETRY_PAUSE_MS * n * (0.5 + Math.random()))
      }
    })
  }

  /**
   * Moves an environment to another owner (a team's key or a user's id): the record, with its deploy
   * key encrypted anew for the new owner, and its summary entry. 409 when the new owner has an
   * environment of that name; 400 when its cloud credential is not one the new owner may use.
   */
  async move(stored: EnvironmentRecord, ownerKey: string, movedBy: string): Promise<EnvironmentRecord> {
    if (stored.userId === ownerKey) return stored
    const from = stored.userId
    const moved = await ownerLock(this.db, from, async () => {
      const current = await this.get(from, stored._id)
      if (!current) throw notFound('Environment not found')
      const { createdBy, ...rest } = current
      const creator = createdBy ?? from
      const doc: EnvironmentRecord = {
        ...rest,
        ...(creator !== ownerKey && !creator.startsWith('team:') && { createdBy: creator }),
        userId: ownerKey,
        version: (current.version ?? 0) + 1,
        updatedAt: new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1)),
      }
      if (doc.cloudCredentialId && !(await this.credentialRefs.usable(doc))) {
        throw fieldError(
          'cloudCredentialId',
          `the environment's cloud credential is not one ${movedBy === ownerKey ? 'you' : 'the team'} may use; remove it (null) before moving`,
        )
      }
      if (current.deployKey) {
        const key = this.keys.decryptSecret(current.deployKey, this.deployKeyContext(doc._id, from))
        doc.deployKey = this.keys.encryptSecret(key, this.deployKeyContext(doc._id, ownerKey))
      }
      try {
        if (!(await replaceAtVersion(this.db, this.collection, current.version, toStored(doc)))) throw new VersionConflict()
      } catch (err) {
        if (isDuplicateKey(err)) throw conflict(`An environment named '${doc.name}' already exists there`)
        throw err
      }
      await this.summarize(from, () => this.summaries.removeHeld(from, doc._id))
      return doc
    })
    await this.summarize(ownerKey, () => this.summaries.putLocking(moved))
    await this.summarize(ownerKey, () => this.driftList.keep(moved))
    return moved
  }

  /**
   * Every environment record of the user, in one query: on the embedded store a scan of the table,
   * so only for building a per-user document (many `_id` reads would each walk it).
   */
  async allRecords(userId: string): Promise<EnvironmentRecord[]> {
    return (await this.collection.find({ userId }).toArray()).map(fromStored)
  }

  /**
   * The stored values of an environment that `catalog` (the typed view) refuses, values and relations
   * (catalog-check.ts, the one rule); none for a provider the catalog does not describe.
   */
  storedValueProblems(env: EnvironmentRecord, catalog: TypedCatalog): FieldError[] {
    return storedProblems(catalog, env)
  }

  /** Deletes one of the user's environments after the deletion hooks ran; false when there is none. */
  async remove(userId: string, id: string): Promise<boolean> {
    const doc = await this.get(userId, id)
    if (!doc) return false
    for (const hook of this.deletedHooks) await hook(doc)
    const result = await this.collection.deleteOne({ _id: id })
    await this.summarize(userId, () => this.summaries.remove(userId, id))
    await this.summarize(userId, () => this.driftList.remove(id))
    return result.deletedCount === 1
  }

  /** The environments checked for drift on a schedule (`driftCheckHours`), every owner's. */
  driftScheduled(): Promise<DriftScheduled[]> {
    return this.driftList.all()
  }

  /** Names of the user's environments that reference a cloud credential. */
  async namesUsingCredential(userId: string, credentialId: string): Promise<string[]> {
    return (await this.usingCredential(userId, credentialId)).map((e) => e.name)
  }

  /** Ids and names of the user's environments that reference a cloud credential, by name. */
  async usingCredential(userId: string, credentialId: string): Promise<{ id: string; name: string }[]> {
    const docs = await this.collection
      .find({ userId, cloudCredentialId: credentialId }, { projection: { name: 1 } })
      .sort({ name: 1 })
      .toArray()
    return docs.map((d) => ({ id: d._id, name: d.name }))
  }

  /** Re-encrypts every deploy key not under the current key (scripts/reencrypt.ts). */
  async reencryptAll(): Promise<ReencryptResult> {
    return reencryptField(this.collection, this.keys, 'deployKey', (doc) => this.deployKeyContext(doc._id, doc.userId))
  }
}
