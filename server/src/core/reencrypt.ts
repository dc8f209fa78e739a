// Key rotation (scripts/reencrypt.ts): every document whose encrypted field is under an older key
// gets the same plaintext under the current key. The update is conditional on the ciphertext it
// read, so a value changed meanwhile is left to its writer (already under the current key).
import type { Collection, Filter } from 'mongodb'
import type { EncryptedSecret, KeyRing, SecretContext } from './crypto.ts'

export interface ReencryptResult {
  updated: number
  /** Ids of documents whose value could not be decrypted or written. */
  failed: string[]
}

export async function reencryptField<D extends { _id: string }>(
  collection: Collection<D>,
  keys: KeyRing,
  field: string & keyof D,
  contextOf: (doc: D) => SecretContext,
): Promise<ReencryptResult> {
  let updated = 0
  const failed: string[] = []
  for await (const doc of collection.find({ [field]: { $exists: true } } as Filter<D>)) {
    const secret = (doc as D)[field] as EncryptedSecret | undefined
    if (!secret || !keys.isStale(secret)) continue
    try {
      const fresh = keys.reencryptSecret(secret, contextOf(doc as D))
      const filter = { _id: doc._id, [`${field}.data`]: secret.data } as Filter<D>
      // The version moves too: a writer that read the old ciphertext (environments replace only the
      // version they read) must re-read instead of writing the old one back.
      const result = await collection.updateOne(filter, { $set: { [field]: fresh }, $inc: { version: 1 } } as never)
      updated += result.modifiedCount
    } catch {
      failed.push(doc._id)
    }
  }
  return { updated, failed }
}
