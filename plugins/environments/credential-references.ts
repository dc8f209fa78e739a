// An environment's reference to a cloud credential (`cloudCredentialId`), checked against the
// credentials collection (written by the cloud credentials plugin; read here, never written): the
// credential must exist, be the owner's, have the environment's provider and not be being deleted.
import type { Collection, Db } from 'mongodb'
import { fieldError } from '@ies/server/core/errors'
import type { EnvironmentRecord } from './record.ts'

/**
 * What a credential deletion writes onto the credential before it looks for environments using it
 * (`cloud_credentials.deleting`); an environment write that assigns the credential checks for it
 * after writing. Of two such requests on different replicas at least one sees the other, so a
 * deletion and an assignment never both succeed. A mark older than this is left over by a server
 * that stopped mid-deletion and is ignored.
 */
export interface DeletionMark {
  by: string
  at: Date
}
export const DELETION_MARK_TTL_MS = 60_000

/** The members of a stored cloud credential an environment reference is checked against. */
interface CredentialReference {
  _id: string
  userId: string
  provider: string
  deleting?: DeletionMark
}

/** The 400 of a reference to a credential the environment may not use. */
export const credentialRefused = (provider: string) =>
  fieldError('cloudCredentialId', `must name one of your cloud credentials for provider ${provider}`)

type Referencing = Pick<EnvironmentRecord, 'userId' | 'provider' | 'cloudCredentialId'>

export class CredentialReferences {
  private readonly credentials: Collection<CredentialReference>

  constructor(db: Db) {
    this.credentials = db.collection<CredentialReference>('cloud_credentials')
  }

  /** The record without a `cloudCredentialId` whose credential is gone or not its owner's. */
  async withUsable(doc: EnvironmentRecord): Promise<EnvironmentRecord> {
    if (doc.cloudCredentialId) {
      const credential = await this.credentials.findOne({ _id: doc.cloudCredentialId }, { projection: { userId: 1 } })
      if (credential?.userId !== doc.userId) delete doc.cloudCredentialId
    }
    return doc
  }

  /** True when the credential exists, is the user's, has the environment's provider and is not being deleted. */
  async usable(env: Referencing): Promise<boolean> {
    const credential = await this.credentials.findOne({ _id: env.cloudCredentialId! })
    if (!credential || credential.userId !== env.userId || credential.provider !== env.provider) return false
    const mark = credential.deleting
    return !mark || Date.now() - new Date(mark.at).getTime() > DELETION_MARK_TTL_MS
  }

  async assertUsable(env: Referencing): Promise<void> {
    if (!(await this.usable(env))) throw credentialRefused(env.provider)
  }
}
