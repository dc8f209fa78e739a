// The user record: the service's projection of an identity-provider subject, kept in step with the
// token's claims on every authenticated request (a small in-process cache skips unchanged writes).
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { PROVIDERS, THEMES } from '@ies/api/values'
import type { Preferences, User } from '@ies/api/types'

export { PROVIDERS, THEMES }
export type { Preferences, User }

export interface UserDoc {
  _id: string
  identityProviderId: string
  username: string
  email: string
  preferences: Preferences
  createdAt: Date
  updatedAt: Date
}

export interface Identity {
  sub: string
  username: string
  email: string
}

export const DEFAULT_PREFERENCES: Preferences = { theme: 'system', defaultProvider: 'aws' }

export function toUser(doc: UserDoc): User {
  return {
    id: doc._id,
    identityProviderId: doc.identityProviderId,
    username: doc.username,
    email: doc.email,
    preferences: { ...DEFAULT_PREFERENCES, ...doc.preferences },
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  }
}

export class UsersRepository {
  readonly collection: Collection<UserDoc>
  private readonly known = new Map<string, { id: string; fingerprint: string }>()

  constructor(db: Db) {
    this.collection = db.collection<UserDoc>('users')
  }

  async init() {
    await this.collection.createIndex({ identityProviderId: 1 }, { unique: true })
  }

  /** Creates the user on first sight and updates username/email when the claims change. Returns the user id. */
  async sync(identity: Identity): Promise<string> {
    const fingerprint = `${identity.username}\u0000${identity.email}`
    const cached = this.known.get(identity.sub)
    if (cached && cached.fingerprint === fingerprint) return cached.id
    const now = new Date()
    const existing = await this.collection.findOne({ identityProviderId: identity.sub })
    let id: string
    if (!existing) {
      id = randomUUID()
      try {
        await this.collection.insertOne({
          _id: id,
          identityProviderId: identity.sub,
          username: identity.username,
          email: identity.email,
          preferences: DEFAULT_PREFERENCES,
          createdAt: now,
          updatedAt: now,
        })
      } catch (err) {
        // Two first requests of one user raced; the other one created the record.
        const winner = await this.collection.findOne({ identityProviderId: identity.sub })
        if (!winner) throw err
        id = winner._id
      }
    } else {
      id = existing._id
      if (existing.username !== identity.username || existing.email !== identity.email) {
        await this.collection.updateOne({ _id: id }, { $set: { username: identity.username, email: identity.email, updatedAt: now } })
      }
    }
    if (this.known.size > 10_000) this.known.clear()
    this.known.set(identity.sub, { id, fingerprint })
    return id
  }

  async get(id: string): Promise<User | null> {
    const doc = await this.collection.findOne({ _id: id })
    return doc ? toUser(doc) : null
  }

  async updatePreferences(id: string, preferences: Partial<Preferences>): Promise<User | null> {
    const set: Record<string, unknown> = { updatedAt: new Date() }
    for (const [key, value] of Object.entries(preferences)) {
      if (value !== undefined) set[`preferences.${key}`] = value
    }
    const doc = await this.collection.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' })
    return doc ? toUser(doc) : null
  }

  async list(page: number, limit: number): Promise<{ items: User[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.collection
        .find({})
        .sort({ createdAt: 1, _id: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      this.collection.countDocuments({}),
    ])
    return { items: docs.map(toUser), total }
  }
}
