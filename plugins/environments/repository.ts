// Environments in MongoDB (collection `environments`), always scoped by the owning user. The deploy
// key is encrypted before it reaches the database and decrypted only through getDeployKey.
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { keyRingFor, type EncryptedSecret, type KeyRing } from '@ies/server/core/crypto'
import { conflict } from '@ies/server/core/errors'
import { onePerDatabase } from '@ies/server/core/db'
import { reencryptField, type ReencryptResult } from '@ies/server/core/reencrypt'
import type { Environment, EnvironmentInput } from './schemas.ts'
import { ENVIRONMENT_STATUSES, SORTS } from './schemas.ts'

export const DEPLOY_KEY_PURPOSE = 'environment.deployKey'

/** Terraform state key of environments created before per-environment keys (spec "Transform", rule 1). */
export const LEGACY_STATE_KEY = 'aws.tfstate'

/** What is stored: the validated input without the deploy key, plus the service's own fields. */
export interface EnvironmentRecord extends Omit<EnvironmentInput, 'gitRepository' | 'domain' | 'services' | 'helmCharts'> {
  _id: string
  userId: string
  domain: string
  services: NonNullable<EnvironmentInput['services']>
  helmCharts: NonNullable<EnvironmentInput['helmCharts']>
  gitRepository?: Omit<NonNullable<EnvironmentInput['gitRepository']>, 'deployKey'>
  deployKey?: EncryptedSecret
  status: (typeof ENVIRONMENT_STATUSES)[number]
  /**
   * `environment` for every record this service creates: the state key is `env/<id>/aws.tfstate`.
   * Records without it predate per-environment keys and use the legacy fixed key.
   */
  stateKeyScope?: 'environment'
  createdAt: Date
  updatedAt: Date
}

/** True when the environment predates per-environment Terraform state keys. */
export function usesLegacyStateKey(env: Pick<EnvironmentRecord, 'stateKeyScope'>): boolean {
  return env.stateKeyScope !== 'environment'
}

/** The Terraform state key of an environment (spec "Transform", rule 1). */
export function stateKeyOf(env: Pick<EnvironmentRecord, '_id' | 'stateKeyScope' | 'terraformBackend'>): string {
  if (usesLegacyStateKey(env)) return env.terraformBackend?.key ?? LEGACY_STATE_KEY
  return `env/${env._id}/aws.tfstate`
}

export function toEnvironment(doc: EnvironmentRecord): Environment {
  return {
    id: doc._id,
    name: doc.name,
    globalPrefix: doc.globalPrefix,
    provider: doc.provider,
    region: doc.region,
    domain: doc.domain ?? '',
    services: doc.services ?? {},
    helmCharts: doc.helmCharts ?? {},
    ...(doc.terraformBackend && { terraformBackend: doc.terraformBackend }),
    ...(doc.gitRepository && { gitRepository: { ...doc.gitRepository, hasDeployKey: Boolean(doc.deployKey) } }),
    ...(doc.cloudCredentialId && { cloudCredentialId: doc.cloudCredentialId }),
    status: doc.status,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  }
}

/** The stored record as an input document (what a merge patch applies to); the deploy key stays out. */
export function inputOf(doc: EnvironmentRecord): Record<string, unknown> {
  const { _id, userId, deployKey, status, stateKeyScope, createdAt, updatedAt, ...input } = doc
  return structuredClone(input)
}

/** What happens to the stored deploy key on a write. */
export type DeployKeyChange = { set: string } | 'remove' | 'keep'

export interface ListOptions {
  page: number
  limit: number
  provider?: string
  status?: string
  sort?: keyof typeof SORTS
  order?: 'asc' | 'desc'
}

export type EnvironmentDeletedHook = (env: EnvironmentRecord) => Promise<void> | void

/**
 * A unique-index violation. MongoDB (and FerretDB on insert) answers code 11000; FerretDB 1.24 with
 * SQLite answers an update that violates a unique index with code 1 and SQLite's message.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null
  return e?.code === 11000 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'))
}

export class EnvironmentRepository {
  readonly collection: Collection<EnvironmentRecord>
  private indexesReady?: Promise<void>
  private readonly deletedHooks: EnvironmentDeletedHook[] = []

  constructor(
    db: Db,
    private readonly keys: KeyRing,
  ) {
    this.collection = db.collection<EnvironmentRecord>('environments')
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

  private deployKeyContext(id: string, userId: string) {
    return { purpose: DEPLOY_KEY_PURPOSE, recordId: id, ownerId: userId }
  }

  async list(userId: string, opts: ListOptions): Promise<{ items: EnvironmentRecord[]; total: number }> {
    const filter: Record<string, unknown> = { userId }
    if (opts.provider) filter.provider = opts.provider
    if (opts.status) filter.status = opts.status
    const sort = opts.sort ?? 'created_at'
    // Newest first by default; names A to Z by default.
    const direction = (opts.order ?? (sort === 'name' ? 'asc' : 'desc')) === 'asc' ? 1 : -1
    const [items, total] = await Promise.all([
      this.collection
        .find(filter)
        .sort({ [SORTS[sort]]: direction, _id: direction })
        .skip((opts.page - 1) * opts.limit)
        .limit(opts.limit)
        .toArray(),
      this.collection.countDocuments(filter),
    ])
    return { items, total }
  }

  /** The stored record of one of the user's environments, or null (also for another user's id). */
  get(userId: string, id: string): Promise<EnvironmentRecord | null> {
    return this.collection.findOne({ _id: id, userId })
  }

  /** The decrypted private deploy key, or null when the environment has none. For jobs only. */
  async getDeployKey(userId: string, id: string): Promise<string | null> {
    const doc = await this.get(userId, id)
    if (!doc?.deployKey) return null
    return this.keys.decryptSecret(doc.deployKey, this.deployKeyContext(id, userId))
  }

  async create(userId: string, input: EnvironmentInput): Promise<EnvironmentRecord> {
    await this.indexes()
    const now = new Date()
    const id = randomUUID()
    const doc = this.recordOf(id, userId, input, input.gitRepository?.deployKey ? { set: input.gitRepository.deployKey } : 'keep', {
      status: 'pending',
      stateKeyScope: 'environment',
      createdAt: now,
      updatedAt: now,
    })
    try {
      await this.collection.insertOne(doc)
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`Environment '${input.name}' already exists`)
      throw err
    }
    return doc
  }

  /** Replaces the caller-settable fields of a stored environment with a validated input. */
  async replace(stored: EnvironmentRecord, input: EnvironmentInput, deployKey: DeployKeyChange): Promise<EnvironmentRecord | null> {
    const doc = this.recordOf(stored._id, stored.userId, input, deployKey, {
      status: stored.status,
      stateKeyScope: stored.stateKeyScope,
      createdAt: stored.createdAt,
      updatedAt: new Date(Math.max(Date.now(), stored.updatedAt.getTime() + 1)),
      deployKey: stored.deployKey,
    })
    const result = await this.collection.replaceOne({ _id: stored._id, userId: stored.userId }, doc)
    return result.matchedCount === 1 ? doc : null
  }

  private recordOf(
    id: string,
    userId: string,
    input: EnvironmentInput,
    deployKey: DeployKeyChange,
    kept: Pick<EnvironmentRecord, 'status' | 'stateKeyScope' | 'createdAt' | 'updatedAt' | 'deployKey'>,
  ): EnvironmentRecord {
    const { gitRepository, ...rest } = input
    const doc: EnvironmentRecord = {
      _id: id,
      userId,
      ...rest,
      domain: input.domain ?? '',
      services: input.services ?? {},
      helmCharts: input.helmCharts ?? {},
      status: kept.status,
      createdAt: kept.createdAt,
      updatedAt: kept.updatedAt,
    }
    if (kept.stateKeyScope) doc.stateKeyScope = kept.stateKeyScope
    if (gitRepository) {
      const { deployKey: _plaintext, ...repository } = gitRepository
      doc.gitRepository = repository
      if (deployKey === 'keep' && kept.deployKey) doc.deployKey = kept.deployKey
      if (typeof deployKey === 'object') doc.deployKey = this.keys.encryptSecret(deployKey.set, this.deployKeyContext(id, userId))
    }
    return doc
  }

  /** Deletes one of the user's environments after the deletion hooks ran; false when there is none. */
  async remove(userId: string, id: string): Promise<boolean> {
    const doc = await this.get(userId, id)
    if (!doc) return false
    for (const hook of this.deletedHooks) await hook(doc)
    const result = await this.collection.deleteOne({ _id: id, userId })
    return result.deletedCount === 1
  }

  /** Names of the user's environments that reference a cloud credential. */
  async namesUsingCredential(userId: string, credentialId: string): Promise<string[]> {
    const docs = await this.collection
      .find({ userId, cloudCredentialId: credentialId }, { projection: { name: 1 } })
      .sort({ name: 1 })
      .toArray()
    return docs.map((d) => d.name)
  }

  /** Re-encrypts every deploy key not under the current key (scripts/reencrypt.ts). */
  async reencryptAll(): Promise<ReencryptResult> {
    return reencryptField(this.collection, this.keys, 'deployKey', (doc) => this.deployKeyContext(doc._id, doc.userId))
  }
}

/** The app's environment repository (one per database handle, shared by every plugin). */
export const environmentRepository = onePerDatabase((app) => new EnvironmentRepository(app.mongo.db, keyRingFor(app.config, app.log)))
