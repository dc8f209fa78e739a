// Wizard drafts (client consumption: a draft is saved with the catalog's commit). A draft keeps a
// small fingerprint of the catalog it was made under, so reopening it under another commit can say
// which services and fields changed or vanished. Drafts belong to the signed-in user: the key holds
// the token's subject, so the next person on the same browser never sees them, and sign-out can
// remove them all. Drafts never hold a secret: the caller passes values without them
// (values.ts `draftValuesOf`).
import type { PreparedCatalog, WizardField } from '../catalog/prepared-catalog.ts'

export interface FieldFingerprint {
  type: string
  default: unknown
  pattern: string | null
  options: unknown[] | null
}

export type CatalogFingerprint = Record<string, Record<string, FieldFingerprint>>

export interface Draft<V = unknown> {
  commit: string
  savedAt: string
  fingerprint: CatalogFingerprint
  values: V
  step?: number
  /** What was typed but not kept (secrets), by label. */
  leftOut?: string[]
}

export interface KeyValueStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** A storage whose keys can be listed (localStorage's shape), for removing a user's drafts. */
export interface ListableStorage extends KeyValueStorage {
  readonly length: number
  key(index: number): string | null
}

const DRAFT_PREFIX = 'ies.wizardDraft:'
/** Drafts of earlier versions, kept under keys without a user (`ies.wizardDraft.new`). */
const UNOWNED_DRAFT_PREFIX = 'ies.wizardDraft.'

/** The draft of one wizard (a new environment, or the edit of `environmentId`) of one user (`subject`, the token's `sub`). */
export const draftKey = (subject: string, environmentId: string | null) =>
  `${DRAFT_PREFIX}${encodeURIComponent(subject)}:${environmentId === null ? 'new' : encodeURIComponent(environmentId)}`

function keysOf(storage: ListableStorage): string[] {
  const keys: string[] = []
  for (let i = 0; i < storage.length; i++) {
    const k = storage.key(i)
    if (k !== null) keys.push(k)
  }
  return keys
}

/** Remove every draft of `subject` (sign-out, when the user asks); answers how many were removed. */
export function clearDrafts(storage: ListableStorage, subject: string): number {
  const mine = keysOf(storage).filter((k) => k.startsWith(`${DRAFT_PREFIX}${encodeURIComponent(subject)}:`))
  for (const k of mine) storage.removeItem(k)
  return mine.length
}

/** Remove drafts no user owns (saved before drafts were per user; they may hold a deploy key in plain text). */
export function removeUnownedDrafts(storage: ListableStorage): number {
  const unowned = keysOf(storage).filter((k) => k.startsWith(UNOWNED_DRAFT_PREFIX))
  for (const k of unowned) storage.removeItem(k)
  return unowned.length
}

function fieldPrint(f: WizardField): FieldFingerprint {
  return { type: f.type, default: f.default ?? null, pattern: f.pattern ? f.pattern.source : null, options: f.options ?? null }
}

export function fingerprintOf(catalog: PreparedCatalog): CatalogFingerprint {
  const out: CatalogFingerprint = {}
  for (const s of catalog.services) {
    out[s.key] = {}
    for (const f of s.fields) out[s.key][f.key] = fieldPrint(f)
  }
  return out
}

export interface SaveDraftOptions {
  step?: number
  /** Labels of what the user typed but the draft does not keep (secrets), told when the draft is reopened. */
  leftOut?: string[]
  now?: Date
}

export function saveDraft<V>(storage: KeyValueStorage, key: string, catalog: PreparedCatalog, values: V, opts: SaveDraftOptions = {}) {
  const draft: Draft<V> = {
    commit: catalog.commit,
    savedAt: (opts.now ?? new Date()).toISOString(),
    fingerprint: fingerprintOf(catalog),
    values,
  }
  if (opts.step !== undefined) draft.step = opts.step
  if (opts.leftOut?.length) draft.leftOut = opts.leftOut
  try {
    storage.setItem(key, JSON.stringify(draft))
  } catch {
    // A full storage costs only the draft.
  }
}

export function loadDraft<V>(storage: KeyValueStorage, key: string): Draft<V> | null {
  const text = storage.getItem(key)
  if (!text) return null
  try {
    const draft = JSON.parse(text) as Draft<V>
    return draft && typeof draft.commit === 'string' && draft.fingerprint ? draft : null
  } catch {
    return null
  }
}

export interface CatalogChange {
  kind: 'service-vanished' | 'field-vanished' | 'field-changed' | 'service-added' | 'field-added'
  service: string
  field?: string
  /** For field-changed: which attributes differ. */
  attributes?: (keyof FieldFingerprint)[]
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** What differs between the catalog a draft was saved under and the catalog now. Empty when the commit is the same. */
export function diffDraft(draft: Draft, catalog: PreparedCatalog): CatalogChange[] {
  if (draft.commit === catalog.commit) return []
  const now = fingerprintOf(catalog)
  const changes: CatalogChange[] = []
  for (const [service, fields] of Object.entries(draft.fingerprint)) {
    if (!(service in now)) {
      changes.push({ kind: 'service-vanished', service })
      continue
    }
    for (const [field, before] of Object.entries(fields)) {
      const after = now[service][field]
      if (!after) changes.push({ kind: 'field-vanished', service, field })
      else {
        const attributes = (Object.keys(before) as (keyof FieldFingerprint)[]).filter((k) => !same(before[k], after[k]))
        if (attributes.length) changes.push({ kind: 'field-changed', service, field, attributes })
      }
    }
    for (const field of Object.keys(now[service])) {
      if (!(field in fields)) changes.push({ kind: 'field-added', service, field })
    }
  }
  for (const service of Object.keys(now)) {
    if (!(service in draft.fingerprint)) changes.push({ kind: 'service-added', service })
  }
  return changes
}

/** One sentence per change, for the notice shown when a draft is reopened. */
export function describeChange(c: CatalogChange): string {
  switch (c.kind) {
    case 'service-vanished':
      return `Service "${c.service}" is no longer in the catalog; its settings in this draft will not generate anything.`
    case 'field-vanished':
      return `Field "${c.service}.${c.field}" is no longer in the catalog.`
    case 'field-changed':
      return `Field "${c.service}.${c.field}" changed (${c.attributes!.join(', ')}); check its value.`
    case 'service-added':
      return `Service "${c.service}" is new in the catalog.`
    case 'field-added':
      return `Field "${c.service}.${c.field}" is new; it starts with its default.`
  }
}
