// Environments in MongoDB (collection `environments`), always scoped by the owning user: the one
// object other plugins and the jobs reach as `app.environments` (service.ts). It reads here and hands
// each kind of write to the module named after it: creating and changing a record (writes.ts),
// moving it to another owner (owner-move.ts), storing what the templates' migrations make of it
// (store-migrated.ts); what is derived from each write (the owner's list summary, the drift
// schedule's list) is kept by derived-lists.ts, list pages are read by lists.ts. The deploy key is
// encrypted before it reaches the database and decrypted only through getDeployKey (deploy-keys.ts).
//
// Concurrent writes (README.md, "Concurrent writes"): every record carries a `version`; a write
// replaces the record only if it still has the version it was computed from, and a lost race is
// re-read, re-merged and retried (`updating`). Writes of one user's environments and deletions of
// that user's cloud credentials also run one at a time in this process (`ownerLock`), which is what
// keeps them correct on FerretDB, whose conditional writes are not atomic.
import type { Collection, Db } from 'mongodb'
import type { KeyRing } from '@ies/server/core/crypto'
import type { FieldError } from '@ies/server/core/errors'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import type { ReencryptResult } from '@ies/server/core/reencrypt'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import type { Migration } from '@ies/processor-lib/migrations/index'
import type { EnvironmentAction } from '@ies/api/schemas/teams'
import type { EnvironmentInput } from '@ies/api/schemas/environments'
import type { TeamsRepository } from '../teams/repository.ts'
import type { Caller, Scope } from '../teams/scopes.ts'
import { storedProblems } from './catalog-check.ts'
import type { EnvironmentRecord } from './record.ts'
import { fromStored, type StoredEnvironment } from './stored-form.ts'
import type { EnvironmentSummaries } from './summaries.ts'
import type { DriftScheduled } from './drift-scheduled.ts'
import { CredentialReferences } from './credential-references.ts'
import { EnvironmentLists, type ListOptions, type ListRow } from './lists.ts'
import { DeployKeys } from './deploy-keys.ts'
import { DerivedLists } from './derived-lists.ts'
import { EnvironmentWrites, type DeployKeyChange, type LockedWrites } from './writes.ts'
import { moveEnvironment, type MoveParts } from './owner-move.ts'
import { storeMigrated, type EnvironmentMigratedHook } from './store-migrated.ts'

export { VersionConflict } from './write-retry.ts'
export type { DeployKeyChange, LockedWrites, EnvironmentMigratedHook }

/** An environment the caller may act on, with their role and its team (plugins/teams/scopes.ts). */
export interface Accessed extends Scope {
  env: EnvironmentRecord
}

export type EnvironmentDeletedHook = (env: EnvironmentRecord) => Promise<void> | void

export class EnvironmentRepository {
  readonly collection: Collection<StoredEnvironment>
  /** Per user: what a list filters, sorts, counts and pages (summaries.ts). */
  readonly summaries: EnvironmentSummaries
  /** The cloud credentials an environment references (plugins/cloud-credentials), read only to check them. */
  private readonly credentialRefs: CredentialReferences
  private readonly deployKeys: DeployKeys
  private readonly derived: DerivedLists
  private readonly lists: EnvironmentLists
  private readonly writes: EnvironmentWrites
  /** What a move and a migration write with (owner-move.ts, store-migrated.ts). */
  private readonly parts: MoveParts
  private indexesReady?: Promise<void>
  private readonly deletedHooks: EnvironmentDeletedHook[] = []
  private readonly migratedHooks: EnvironmentMigratedHook[] = []

  constructor(
    private readonly db: Db,
    keys: KeyRing,
    /** Who may do what (`app.teams`); absent where no request is served (scripts). */
    readonly teams?: Pick<TeamsRepository, 'check' | 'scopes' | 'target'>,
  ) {
    this.collection = db.collection<StoredEnvironment>('environments')
    this.credentialRefs = new CredentialReferences(db)
    this.deployKeys = new DeployKeys(keys)
    this.derived = new DerivedLists(db, this.collection)
    this.summaries = this.derived.summaries
    this.lists = new EnvironmentLists(this.collection, this.summaries, (caller, team) => this.scopes(caller, team))
    const { collection, credentialRefs, deployKeys, derived } = this
    this.parts = { db, collection, credentialRefs, deployKeys, derived, get: (userId, id) => this.get(userId, id) }
    this.writes = new EnvironmentWrites({ ...this.parts, indexes: () => this.indexes() })
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

  /** Runs before an environment is deleted (its jobs, its archives); a hook that throws stops the deletion. */
  onEnvironmentDeleted(hook: EnvironmentDeletedHook): void {
    this.deletedHooks.push(hook)
  }

  /** Registers what runs after a push stored an environment's migrated configuration (the history). */
  onEnvironmentMigrated(hook: EnvironmentMigratedHook): void {
    this.migratedHooks.push(hook)
  }

  /** One page of the caller's environments as list rows, and their total (lists.ts). */
  listRows(caller: Caller, opts: ListOptions): Promise<{ items: ListRow[]; total: number }> {
    return this.lists.rows(caller, opts)
  }

  /**
   * One of the caller's environments for an action (read by `_id`, as `get`), the caller's role and its
   * team; 404 when the caller may not see it, 403 when their role does not allow the action (scopes.ts).
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
   * The stored record of one of the user's environments, or null (also for another user's id),
   * without a `cloudCredentialId` whose credential is gone (its next write drops the stale id).
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

  /** An environment for a job, whoever queued it (the request that queued it went through `access`), or null when gone. */
  async forJob(id: string): Promise<EnvironmentRecord | null> {
    const stored = await this.collection.findOne({ _id: id })
    return stored && this.credentialRefs.withUsable(fromStored(stored))
  }

  /** The decrypted private deploy key, or null when the environment has none (or is not the owner's). For jobs only. */
  async getDeployKey(userId: string, id: string): Promise<string | null> {
    const doc = await this.get(userId, id)
    return doc?.deployKey ? this.deployKeys.open(doc.deployKey, id, userId) : null
  }

  /** Creates an environment (writes.ts). */
  create(userId: string, input: EnvironmentInput, opts: { migrations?: string[]; createdBy?: string } = {}): Promise<EnvironmentRecord> {
    return this.writes.create(userId, input, opts)
  }

  /** A read-merge-validate-write under the owner's lock, retried on a lost version race (writes.ts). */
  updating<T>(userId: string, request: { body: unknown }, attempt: (locked: LockedWrites) => Promise<T>): Promise<T> {
    return this.writes.updating(userId, request, attempt)
  }

  /** Replaces a stored record's caller-settable fields if it still has their version (writes.ts, `replaceLocked`). */
  replace(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null> {
    return ownerLock(this.db, stored.userId, () => this.writes.replaceLocked(stored, input, deployKey))
  }

  /** Stores what the migrations the environment has not run make of it, and their ids (store-migrated.ts). */
  storeMigrated(userId: string, id: string, all: readonly Migration[], by: { userId: string; jobId?: string }): Promise<void> {
    return storeMigrated(this.parts, this.migratedHooks, { userId, id }, all, by)
  }

  /** Moves an environment to another owner key (owner-move.ts). */
  move(stored: EnvironmentRecord, ownerKey: string, movedBy: string): Promise<EnvironmentRecord> {
    return moveEnvironment(this.parts, stored, ownerKey, movedBy)
  }

  /**
   * Every environment record of the user, in one query: on the embedded store a scan of the table,
   * so only for building a per-user document (many `_id` reads would each walk it).
   */
  async allRecords(userId: string): Promise<EnvironmentRecord[]> {
    return (await this.collection.find({ userId }).toArray()).map(fromStored)
  }

  /** The stored values `catalog` (the typed view) refuses (catalog-check.ts, the one rule). */
  storedValueProblems(env: EnvironmentRecord, catalog: TypedCatalog): FieldError[] {
    return storedProblems(catalog, env)
  }

  /** Deletes one of the user's environments after the deletion hooks ran; false when there is none. */
  async remove(userId: string, id: string): Promise<boolean> {
    const doc = await this.get(userId, id)
    if (!doc) return false
    for (const hook of this.deletedHooks) await hook(doc)
    const result = await this.collection.deleteOne({ _id: id })
    await this.derived.removed(userId, id)
    return result.deletedCount === 1
  }

  /** The environments checked for drift on a schedule (`driftCheckHours`), every owner's. */
  driftScheduled(): Promise<DriftScheduled[]> {
    return this.derived.driftScheduled()
  }

  /** Ids and names of the user's environments that reference a cloud credential, by name. */
  async usingCredential(userId: string, credentialId: string): Promise<{ id: string; name: string }[]> {
    const docs = await this.collection
      .find({ userId, cloudCredentialId: credentialId }, { projection: { name: 1 } })
      .sort({ name: 1 })
      .toArray()
    return docs.map((d) => ({ id: d._id, name: d.name }))
  }

  /** Names of the user's environments that reference a cloud credential. */
  async namesUsingCredential(userId: string, credentialId: string): Promise<string[]> {
    return (await this.usingCredential(userId, credentialId)).map((e) => e.name)
  }

  /** Re-encrypts every deploy key not under the current key (scripts/reencrypt.ts). */
  reencryptAll(): Promise<ReencryptResult> {
    return this.deployKeys.reencryptAll(this.collection)
  }
}
