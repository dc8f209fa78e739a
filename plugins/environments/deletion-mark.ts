// The mark a credential deletion leaves on the credential (`cloud_credentials.deleting`): written by
// the cloud credentials plugin, checked here when an environment write assigns the credential.

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
