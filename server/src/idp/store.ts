// The provider's storage: one in-memory store per identity provider instance (sessions, grants,
// codes, refresh tokens, device codes). It outlives the oidc-provider instance, so a key rotation
// (which builds a new instance) keeps every session and token.
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider'

const modelOf = (key: string) => key.slice(0, key.indexOf(':'))

interface Entry {
  payload: AdapterPayload
  expiresAt: number
}

export class MemoryStore {
  private readonly entries = new Map<string, Entry>()
  private readonly byGrant = new Map<string, Set<string>>()
  private readonly byIndex = new Map<string, string>()

  get(key: string): AdapterPayload | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.delete(key)
      return undefined
    }
    return entry.payload
  }

  set(key: string, payload: AdapterPayload, expiresInSeconds: number | undefined): void {
    this.delete(key)
    this.entries.set(key, { payload, expiresAt: expiresInSeconds ? Date.now() + expiresInSeconds * 1000 : Infinity })
    if (payload.grantId) {
      const members = this.byGrant.get(payload.grantId) ?? new Set<string>()
      members.add(key)
      this.byGrant.set(payload.grantId, members)
    }
    const model = modelOf(key)
    if (payload.uid) this.byIndex.set(`${model}:uid:${payload.uid}`, key)
    if (payload.userCode) this.byIndex.set(`${model}:userCode:${payload.userCode}`, key)
  }

  delete(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    const { grantId, uid, userCode } = entry.payload
    if (grantId) this.byGrant.get(grantId)?.delete(key)
    const model = modelOf(key)
    if (uid && this.byIndex.get(`${model}:uid:${uid}`) === key) this.byIndex.delete(`${model}:uid:${uid}`)
    if (userCode && this.byIndex.get(`${model}:userCode:${userCode}`) === key) {
      this.byIndex.delete(`${model}:userCode:${userCode}`)
    }
  }

  findByIndex(index: string): AdapterPayload | undefined {
    const key = this.byIndex.get(index)
    return key ? this.get(key) : undefined
  }

  deleteGrant(grantId: string): void {
    for (const key of [...(this.byGrant.get(grantId) ?? [])]) this.delete(key)
    this.byGrant.delete(grantId)
  }

  /** oidc-provider's `adapter` option: one adapter per model name over this store. */
  adapterFactory(): AdapterFactory {
    return (model: string): Adapter => {
      const key = (id: string) => `${model}:${id}`
      return {
        upsert: async (id, payload, expiresIn) => this.set(key(id), payload, expiresIn),
        find: async (id) => this.get(key(id)),
        findByUid: async (uid) => this.findByIndex(`${model}:uid:${uid}`),
        findByUserCode: async (userCode) => this.findByIndex(`${model}:userCode:${userCode}`),
        consume: async (id) => {
          const payload = this.get(key(id))
          if (payload) payload.consumed = Math.floor(Date.now() / 1000)
        },
        destroy: async (id) => this.delete(key(id)),
        revokeByGrantId: async (grantId) => this.deleteGrant(grantId),
      }
    }
  }
}
