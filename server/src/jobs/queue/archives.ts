// Generated archives in the database, so any replica can serve a download. An archive up to
// INLINE_LIMIT_BYTES (every generation of the bundled templates, by far) is one document in
// `archiveDocuments` whose `_id` is the job id, written with one insert and read with one `{ _id }`
// lookup (the only filter FerretDB 1.x pushes down; GridFS reads chunks by `files_id`, which there
// means decoding every stored chunk). An insert only checks the unique `_id` index, whereas on
// FerretDB 1.24 (SQLite) even an `{ _id }` filter reads every row of the table (its query
// expression is not the one its `_id` index is built on), so a write never filters this table of
// large documents: what an earlier attempt of the job stored is removed first (removeForJob, only on
// a retry). Larger archives go to GridFS (bucket `archives`). The job record holds the archive id: a
// string (the job id) for a document, an ObjectId for GridFS.
import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { Binary, GridFSBucket, ObjectId, type Collection, type Db } from 'mongodb'
import { INLINE_LIMIT_BYTES } from '../../core/archive-limits.ts'

interface ArchiveDocument {
  _id: string
  filename: string
  contentType: 'application/zip'
  data: Binary
  createdAt: Date
}

export type ArchiveId = string | ObjectId

export class ArchiveStore {
  private readonly bucket: GridFSBucket
  private readonly documents: Collection<ArchiveDocument>

  constructor(private readonly db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: 'archives' })
    this.documents = db.collection<ArchiveDocument>('archiveDocuments')
  }

  /** Indexes for the GridFS lookups by job (`removeForJob`); documents are found by `_id`. */
  async init(): Promise<void> {
    await this.db.collection('archives.files').createIndex({ 'metadata.jobId': 1 }, { name: 'job' })
  }

  /** Stores the job's zip; its id, size and SHA-256. */
  async put(jobId: string, filename: string, zip: Buffer): Promise<{ id: ArchiveId; size: number; sha256: string }> {
    const sha256 = createHash('sha256').update(zip).digest('hex')
    if (zip.length <= INLINE_LIMIT_BYTES) {
      const doc: ArchiveDocument = { _id: jobId, filename, contentType: 'application/zip', data: new Binary(zip), createdAt: new Date() }
      try {
        await this.documents.insertOne(doc)
      } catch (err) {
        if ((err as { code?: unknown }).code !== 11000) throw err
        // Stored by an earlier attempt that removeForJob did not see (it was still writing).
        await this.documents.deleteOne({ _id: jobId })
        await this.documents.insertOne(doc)
      }
      return { id: jobId, size: zip.length, sha256 }
    }
    const upload = this.bucket.openUploadStream(filename, { metadata: { jobId, contentType: 'application/zip' } })
    await new Promise<void>((resolve, reject) => {
      upload.once('finish', () => resolve())
      upload.once('error', reject)
      upload.end(zip)
    })
    return { id: upload.id, size: zip.length, sha256 }
  }

  async open(id: ArchiveId): Promise<Readable> {
    if (typeof id !== 'string') return this.bucket.openDownloadStream(id)
    return Readable.from([await this.readDocument(id)])
  }

  async read(id: ArchiveId): Promise<Buffer> {
    if (typeof id === 'string') return this.readDocument(id)
    const chunks: Buffer[] = []
    for await (const chunk of this.bucket.openDownloadStream(id)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  async remove(ids: unknown[]): Promise<void> {
    for (const id of ids) {
      if (typeof id === 'string') await this.documents.deleteOne({ _id: id }).catch(() => {})
      else if (id instanceof ObjectId) await this.bucket.delete(id).catch(() => {})
    }
  }

  /**
   * Whatever an earlier attempt of the job stored (a worker that died after storing its archive).
   * Only a retried job calls this: the GridFS lookup by metadata scans on FerretDB.
   */
  async removeForJob(jobId: string): Promise<void> {
    const files = await this.bucket.find({ 'metadata.jobId': jobId }).toArray()
    await this.remove([jobId, ...files.map((f) => f._id)])
  }

  private async readDocument(id: string): Promise<Buffer> {
    const doc = await this.documents.findOne({ _id: id })
    if (!doc) throw new Error(`archive ${id} not found`)
    return Buffer.from(doc.data.buffer)
  }
}
