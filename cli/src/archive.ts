// A generation's archive saved to a file, checked against the job's own checksum before it is written.
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import type { ApiClient, Job } from '@ies/api'
import { CommandFailed, EXIT } from './output.ts'

export type ArchiveResult = { archive?: { filename: string; size: number; sha256: string }; fileCount?: number; templatesCommit?: string }

/** Downloads the archive of a successful generation job to `file` (default: the server's file name); answers the path. */
export async function saveArchive(client: ApiClient, job: Job, file?: string): Promise<{ file: string; size: number }> {
  const archive = await client.download(job.id)
  const bytes = new Uint8Array(await archive.arrayBuffer())
  const expected = (job.result as ArchiveResult | undefined)?.archive?.sha256
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  if (expected && expected !== sha256) {
    throw new CommandFailed(`The downloaded archive does not match the job's checksum (${expected})`, EXIT.FAILURE, 'CHECKSUM_MISMATCH')
  }
  const target = file ?? safeName(archive.filename) ?? `${job.id}.zip`
  writeFileSync(target, bytes)
  return { file: target, size: bytes.length }
}

/** The server's file name when it is a plain name (no folder, nothing hidden). */
function safeName(name: string | null): string | null {
  return name && /^[\w][\w.-]*$/.test(name) ? name : null
}
