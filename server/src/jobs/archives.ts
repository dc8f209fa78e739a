// Generated archives in MongoDB GridFS (bucket `archives`), so any replica can serve a download.
import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import { GridFSBucket, type Db, type ObjectId } from 'mongodb'

export class ArchiveStore {
  private readonly bucket: GridFSBucket

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: 'archives' })
  }

  /** Stores the zip; its GridFS id, size and SHA-256. */
  async put(jobId: string, filename: string, zip: Buffer): Promise<{ id: ObjectId; size: number; sha256: string }> {
    const upload = this.bucket.openUploadStream(filename, { metadata: { jobId, contentType: 'application/zip' } })
    await new Promise<void>((resolve, reject) => {
      upload.once('finish', () => resolve())
      upload.once('error', reject)
      upload.end(zip)
    })
    return { id: upload.id, size: zip.length, sha256: createHash('sha256').update(zip).digest('hex') }
  }

  open(id: ObjectId): Readable {
    return this.bucket.openDownloadStream(id)
  }

  async read(id: ObjectId): Promise<Buffer> {
    const chunks: Buffer[] = []
    for await (const chunk of this.open(id)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  async remove(ids: unknown[]): Promise<void> {
    for (const id of ids) await this.bucket.delete(id as ObjectId).catch(() => {})
  }

  /** Archives of a job left by an earlier attempt (a worker that died after storing one). */
  async removeForJob(jobId: string, keep?: ObjectId): Promise<void> {
    const files = await this.bucket.find({ 'metadata.jobId': jobId }).toArray()
    await this.remove(files.filter((f) => !keep || !f._id.equals(keep)).map((f) => f._id))
  }
}
