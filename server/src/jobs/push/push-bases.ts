// The generated files of recent pushes, kept on the IES side (collection `pushBases`, one zip per
// environment and generation): the base of the next push's three-way merge, found from the
// `.ies/generation.json` on the customer's branch. That record travels with the content through
// squash, rebase and cherry-pick merges, so the base needs no ref in the customer's repository (a
// host may refuse `refs/ies/*`, a customer may delete it). Keeping the files rather than
// regenerating them: a templates folder (TEMPLATES_DIR) cannot go back to an earlier commit, so a
// regeneration could not be trusted to be the same. The last KEPT_PER_ENVIRONMENT generations of an
// environment stay; they go with the environment. Which ones an environment keeps is listed in
// `pushBaseIndex` (by environment id), so a push reads and prunes by `_id` only: the embedded store
// reads the whole table for any other filter, and this one holds a zip per generation.
import { createHash } from 'node:crypto'
import { Binary, type Collection, type Db } from 'mongodb'
import { unzipToFiles, zipTree, type TreeFile } from '@ies/processor-lib'
import { generationIdentity, type GenerationRecord } from './generation-record.ts'
import { INLINE_LIMIT_BYTES, UNZIP_LIMITS } from '../../core/archive-limits.ts'

/** How many generations of one environment are kept (the last pushes' and reviews' bases). */
export const KEPT_PER_ENVIRONMENT = 10

/** The generations an environment keeps, newest first. */
interface IndexDoc {
  _id: string
  kept: { id: string; keptAt: Date }[]
}

interface BaseDoc {
  /** `<environment id>:<sha256 of the generation's identity>` */
  _id: string
  environmentId: string
  keptAt: Date
  zip: Binary
}

const idOf = (record: GenerationRecord) =>
  `${record.environmentId}:${createHash('sha256').update(generationIdentity(record)).digest('hex')}`

export class PushBases {
  private readonly collection: Collection<BaseDoc>
  private readonly index: Collection<IndexDoc>

  constructor(db: Db) {
    this.collection = db.collection<BaseDoc>('pushBases')
    this.index = db.collection<IndexDoc>('pushBaseIndex')
  }

  /**
   * Keeps the generated files of a push (its generation record among them); false when they are
   * too large to keep (the refs in the customer's repository remain the base then).
   */
  async keep(files: readonly TreeFile[], record: GenerationRecord): Promise<boolean> {
    const zip = await zipTree(files)
    if (zip.length > INLINE_LIMIT_BYTES) return false
    const id = idOf(record)
    const keptAt = new Date()
    await this.collection.replaceOne({ _id: id }, { environmentId: record.environmentId, keptAt, zip: new Binary(zip) }, { upsert: true })
    // One push of an environment at a time (queue/push-lock.ts): its list has no other writer.
    const listed = (await this.index.findOne({ _id: record.environmentId }))?.kept ?? []
    const kept = [{ id, keptAt }, ...listed.filter((k) => k.id !== id)]
    await this.index.replaceOne({ _id: record.environmentId }, { kept: kept.slice(0, KEPT_PER_ENVIRONMENT) }, { upsert: true })
    for (const old of kept.slice(KEPT_PER_ENVIRONMENT)) await this.collection.deleteOne({ _id: old.id })
    return true
  }

  /** The kept files of the generation the record describes, or null. */
  async files(record: GenerationRecord): Promise<TreeFile[] | null> {
    const doc = await this.collection.findOne({ _id: idOf(record) })
    if (!doc) return null
    return unzipToFiles(Buffer.from(doc.zip.buffer), UNZIP_LIMITS)
  }

  async removeForEnvironment(environmentId: string): Promise<void> {
    const listed = (await this.index.findOne({ _id: environmentId }))?.kept ?? []
    for (const k of listed) await this.collection.deleteOne({ _id: k.id })
    await this.index.deleteOne({ _id: environmentId })
  }
}
