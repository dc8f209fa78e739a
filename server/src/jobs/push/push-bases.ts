// The generated files of recent pushes, kept on the IES side (collection `pushBases`, one zip per
// environment and generation): the base of the next push's three-way merge, found from the
// `.ies/generation.json` on the customer's branch. That record travels with the content through
// squash, rebase and cherry-pick merges, so the base needs no ref in the customer's repository (a
// host may refuse `refs/ies/*`, a customer may delete it). Keeping the files rather than
// regenerating them: a templates folder (TEMPLATES_DIR) cannot go back to an earlier commit, so a
// regeneration could not be trusted to be the same. The last KEPT_PER_ENVIRONMENT generations of an
// environment stay; they go with the environment.
import { createHash } from 'node:crypto'
import { Binary, type Collection, type Db } from 'mongodb'
import { unzipToFiles, zipTree, type TreeFile } from '@ies/processor-lib'
import { generationIdentity, type GenerationRecord } from '../generation/generation-record.ts'
import { INLINE_LIMIT_BYTES, UNZIP_LIMITS } from '../queue/archives.ts'

/** How many generations of one environment are kept (the last pushes' and reviews' bases). */
export const KEPT_PER_ENVIRONMENT = 10

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

  constructor(db: Db) {
    this.collection = db.collection<BaseDoc>('pushBases')
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ environmentId: 1 }, { name: 'environment' })
  }

  /**
   * Keeps the generated files of a push (its generation record among them); false when they are
   * too large to keep (the refs in the customer's repository remain the base then).
   */
  async keep(files: readonly TreeFile[], record: GenerationRecord): Promise<boolean> {
    const zip = await zipTree(files)
    if (zip.length > INLINE_LIMIT_BYTES) return false
    const doc = { environmentId: record.environmentId, keptAt: new Date(), zip: new Binary(zip) }
    await this.collection.replaceOne({ _id: idOf(record) }, doc, { upsert: true })
    await this.prune(record.environmentId)
    return true
  }

  /** The kept files of the generation the record describes, or null. */
  async files(record: GenerationRecord): Promise<TreeFile[] | null> {
    const doc = await this.collection.findOne({ _id: idOf(record) })
    if (!doc) return null
    return unzipToFiles(Buffer.from(doc.zip.buffer), UNZIP_LIMITS)
  }

  async removeForEnvironment(environmentId: string): Promise<void> {
    await this.collection.deleteMany({ environmentId })
  }

  private async prune(environmentId: string): Promise<void> {
    const kept = await this.collection.find({ environmentId }, { projection: { _id: 1, keptAt: 1 } }).toArray()
    if (kept.length <= KEPT_PER_ENVIRONMENT) return
    kept.sort((a, b) => b.keptAt.getTime() - a.keptAt.getTime())
    await this.collection.deleteMany({ _id: { $in: kept.slice(KEPT_PER_ENVIRONMENT).map((d) => d._id) } })
  }
}
