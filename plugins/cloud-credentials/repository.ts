// Cloud credentials in MongoDB (collection `cloud_credentials`), scoped by the owning user. The
// `credentials` object is encrypted as one value; only `metadata` (non-secret) is kept in the clear.
// The default credential per user and provider lives in `cloud_credential_defaults`, whose `_id`
// (`<userId>/<provider>`) makes "one default" a property of the database.
//
// A credential an environment references cannot be deleted. The check and the deletion run under
// the owner's lock (shared with environment writes, `ownerLock`), and the credential is marked as
// being deleted before the check, so an environment write on another replica that assigns it sees
// the mark and backs off (README.md, "Deleting a credential in use").
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { EncryptedSecret, KeyRing } from '@ies/server/core/crypto'
import { AppError, conflict, SPEC_CODES } from '@ies/server/core/errors'
import { isDuplicateKey } from '@ies/server/core/db'
import { reencryptField, type ReencryptResult } from '@ies/server/core/reencrypt'
import type { DeletionMark } from '../environments/credential-references.ts'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import { metadataOf } from './metadata.ts'
import type { CredentialProvider, Credentials, Metadata, ValidationResult } from '@ies/api/schemas/cloud-credentials'

export const CREDENTIALS_PURPOSE = 'cloudCredential.credentials'

export interface CloudCredentialRecord {
  _id: string
  userId: string
  name: string
  provider: CredentialProvider
  secret: EncryptedSecret
  metadata: Metadata
  /** Set while a deletion checks for environments using the credential. */
  deleting?: DeletionMark
  /** The last check against the cloud (no secret: its error text is redacted). */
  lastValidation?: ValidationResult
  createdAt: Date
  updatedAt: Date
}

interface DefaultRecord {
  _id: string
  userId: string
  provider: CredentialProvider
  credentialId: string
}

export interface CloudCredential {
  id: string
  name: string
  /** The team it belongs to (set by the routes from the owner's scope). */
  team?: string
  provider: CredentialProvider
  isDefault: boolean
  metadata: Metadata
  lastValidation?: ValidationResult
  createdAt: string
  updatedAt: string
}

const defaultIdOf = (userId: string, provider: string) => `${userId}/${provider}`

/** The refusal to delete a credential that environments use (as the route answers it). */
export const credentialInUse = (names: string[]) =>
  new AppError(400, SPEC_CODES.credentialInUse, `Cloud credential is used by ${names.length} environment(s)`, { environments: names })

export class CloudCredentialRepository {
  readonly collection: Collection<CloudCredentialRecord>
  readonly defaults: Collection<DefaultRecord>
  /** The environments (plugins/environments), read only to find those using a credential. */
  private readonly environments: Collection<{ _id: string; userId: string; name: string; cloudCredentialId?: string }>
  private indexesReady?: Promise<void>

  constructor(
    private readonly db: Db,
    private readonly keys: KeyRing,
  ) {
    this.collection = db.collection<CloudCredentialRecord>('cloud_credentials')
    this.defaults = db.collection<DefaultRecord>('cloud_credential_defaults')
    this.environments = db.collection('environments')
  }

  indexes(): Promise<void> {
    this.indexesReady ??= (async () => {
      await this.collection.createIndex({ userId: 1, name: 1 }, { unique: true, name: 'user_name_unique' })
      await this.collection.createIndex({ userId: 1, createdAt: -1 }, { name: 'user_created' })
      // A user's defaults (the list marks them; a deletion clears the credential's).
      await this.defaults.createIndex({ userId: 1, credentialId: 1 }, { name: 'user_credential' })
    })().catch((err) => {
      this.indexesReady = undefined
      throw err
    })
    return this.indexesReady
  }

  private context(id: string, userId: string) {
    return { purpose: CREDENTIALS_PURPOSE, recordId: id, ownerId: userId }
  }

  private async isDefault(doc: CloudCredentialRecord): Promise<boolean> {
    const found = await this.defaults.findOne({ _id: defaultIdOf(doc.userId, doc.provider) })
    return found?.credentialId === doc._id
  }

  private view(doc: CloudCredentialRecord, isDefault: boolean, team?: string): CloudCredential {
    return {
      id: doc._id,
      name: doc.name,
      ...(team && { team }),
      provider: doc.provider,
      isDefault,
      metadata: doc.metadata,
      ...(doc.lastValidation && { lastValidation: doc.lastValidation }),
      createdAt: doc.createdAt.toISOString(),
      updatedAt: doc.updatedAt.toISOString(),
    }
  }

  /**
   * The credentials of the owners (a user's id, their teams' keys: the team's name, or undefined for
   * the user's own), newest first, each with `isDefault` and `team`.
   */
  async list(owners: Map<string, string | undefined>, opts: { page: number; limit: number; provider?: string }) {
    const userId = { $in: [...owners.keys()] }
    const filter: Record<string, unknown> = { userId }
    if (opts.provider) filter.provider = opts.provider
    const [docs, total, defaults] = await Promise.all([
      this.collection
        .find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .skip((opts.page - 1) * opts.limit)
        .limit(opts.limit)
        .toArray(),
      this.collection.countDocuments(filter),
      this.defaults.find({ userId }).toArray(),
    ])
    const defaultIds = new Set(defaults.map((d) => d.credentialId))
    return { items: docs.map((doc) => this.view(doc, defaultIds.has(doc._id), owners.get(doc.userId))), total }
  }

  /** Who owns a credential (a user's id or a team's key), or undefined when there is none. */
  async ownerOf(id: string): Promise<string | undefined> {
    return (await this.collection.findOne({ _id: id }, { projection: { userId: 1 } }))?.userId
  }

  async get(userId: string, id: string): Promise<CloudCredential | null> {
    const doc = await this.collection.findOne({ _id: id, userId })
    return doc ? this.view(doc, await this.isDefault(doc)) : null
  }

  /** Keeps the result of a check with the credential (unless it was deleted meanwhile). */
  async recordValidation(userId: string, id: string, result: ValidationResult): Promise<void> {
    await this.collection.updateOne({ _id: id, userId }, { $set: { lastValidation: result } })
  }

  /** True when the user owns a credential with this id for this provider (environment references). */
  async ownsForProvider(userId: string, id: string, provider: string): Promise<boolean> {
    return (await this.collection.countDocuments({ _id: id, userId, provider: provider as CredentialProvider }, { limit: 1 })) === 1
  }

  /** The decrypted secret values. For validation and jobs only; never for a response. */
  async getCredentials(userId: string, id: string): Promise<{ provider: CredentialProvider; credentials: Credentials } | null> {
    const doc = await this.collection.findOne({ _id: id, userId })
    if (!doc) return null
    const plaintext = this.keys.decryptSecret(doc.secret, this.context(id, userId))
    return { provider: doc.provider, credentials: JSON.parse(plaintext) as Credentials }
  }

  async create(userId: string, input: { name: string; provider: CredentialProvider; credentials: Credentials }): Promise<CloudCredential> {
    await this.indexes()
    const id = randomUUID()
    const now = new Date()
    const doc: CloudCredentialRecord = {
      _id: id,
      userId,
      name: input.name,
      provider: input.provider,
      secret: this.keys.encryptSecret(JSON.stringify(input.credentials), this.context(id, userId)),
      metadata: metadataOf(input.provider, input.credentials),
      createdAt: now,
      updatedAt: now,
    }
    try {
      await this.collection.insertOne(doc)
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`Cloud credential '${input.name}' already exists`)
      throw err
    }
    return this.view(doc, false)
  }

  /** Renames and/or replaces the secret (re-encrypted under the current key). Null when not found. */
  async update(userId: string, id: string, change: { name?: string; credentials?: Credentials }): Promise<CloudCredential | null> {
    const doc = await this.collection.findOne({ _id: id, userId })
    if (!doc) return null
    const set: Partial<CloudCredentialRecord> = { updatedAt: new Date(Math.max(Date.now(), doc.updatedAt.getTime() + 1)) }
    if (change.name !== undefined) set.name = change.name
    if (change.credentials !== undefined) {
      set.secret = this.keys.encryptSecret(JSON.stringify(change.credentials), this.context(id, userId))
      set.metadata = metadataOf(doc.provider, change.credentials)
    }
    await this.indexes()
    try {
      // A new secret has not been checked: the last check was of the old one.
      const forget = change.credentials !== undefined ? { $unset: { lastValidation: '' as const } } : {}
      const after = await this.collection.findOneAndUpdate({ _id: id, userId }, { $set: set, ...forget }, { returnDocument: 'after' })
      return after ? this.view(after, await this.isDefault(after)) : null
    } catch (err) {
      if (isDuplicateKey(err)) throw conflict(`Cloud credential '${change.name}' already exists`)
      throw err
    }
  }

  /** Marks the credential as the user's default for its provider (replacing the previous one). */
  async setDefault(userId: string, id: string): Promise<CloudCredential | null> {
    // Under the owner's lock, so that a deletion running meanwhile cannot leave a default behind.
    return ownerLock(this.db, userId, async () => {
      const doc = await this.collection.findOne({ _id: id, userId })
      if (!doc) return null
      await this.defaults.replaceOne(
        { _id: defaultIdOf(userId, doc.provider) },
        { userId, provider: doc.provider, credentialId: id },
        { upsert: true },
      )
      return this.view(doc, true)
    })
  }

  /**
   * Deletes the credential unless an environment of the user references it: 400 `CREDENTIAL_IN_USE`
   * with the environments' names (sorted) then. False when there is no such credential. The check
   * and the deletion cannot interleave with an environment write of the same user in this process;
   * across replicas the deletion mark does that (an environment write assigning the credential
   * looks for it after writing).
   */
  async remove(userId: string, id: string): Promise<boolean> {
    return ownerLock(this.db, userId, async () => {
      const mark: DeletionMark = { by: randomUUID(), at: new Date() }
      const marked = await this.collection.updateOne({ _id: id, userId }, { $set: { deleting: mark } })
      if (marked.matchedCount !== 1) return false
      const users = await this.environments
        .find({ userId, cloudCredentialId: id }, { projection: { name: 1 } })
        .sort({ name: 1 })
        .toArray()
      if (users.length > 0) {
        await this.collection.updateOne({ _id: id, userId, 'deleting.by': mark.by }, { $unset: { deleting: '' } })
        throw credentialInUse(users.map((env) => env.name))
      }
      const result = await this.collection.deleteOne({ _id: id, userId })
      if (result.deletedCount !== 1) return false
      await this.defaults.deleteMany({ userId, credentialId: id })
      return true
    })
  }

  /** Re-encrypts every secret not under the current key (scripts/reencrypt.ts). */
  async reencryptAll(): Promise<ReencryptResult> {
    return reencryptField(this.collection, this.keys, 'secret', (doc) => this.context(doc._id, doc.userId))
  }
}
