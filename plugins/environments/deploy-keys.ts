// An environment's deploy key at rest: encrypted for its record and owner key (a move to another
// owner encrypts it anew), decrypted only for the push job (`getDeployKey`).
import type { Collection } from 'mongodb'
import type { EncryptedSecret, KeyRing } from '@ies/server/core/crypto'
import { reencryptField, type ReencryptResult } from '@ies/server/core/reencrypt'
import { DEPLOY_KEY_PURPOSE } from './record.ts'
import type { StoredEnvironment } from './stored-form.ts'

export class DeployKeys {
  constructor(private readonly keys: KeyRing) {}

  seal(key: string, id: string, ownerKey: string): EncryptedSecret {
    return this.keys.encryptSecret(key, context(id, ownerKey))
  }

  open(sealed: EncryptedSecret, id: string, ownerKey: string): string {
    return this.keys.decryptSecret(sealed, context(id, ownerKey))
  }

  /** The key of a record moving from one owner key to another, encrypted for the new one. */
  reseal(sealed: EncryptedSecret, id: string, from: string, to: string): EncryptedSecret {
    return this.seal(this.open(sealed, id, from), id, to)
  }

  /** Re-encrypts every deploy key not under the current key (scripts/reencrypt.ts). */
  reencryptAll(collection: Collection<StoredEnvironment>): Promise<ReencryptResult> {
    return reencryptField(collection, this.keys, 'deployKey', (doc) => context(doc._id, doc.userId))
  }
}

const context = (recordId: string, ownerId: string) => ({ purpose: DEPLOY_KEY_PURPOSE, recordId, ownerId })
