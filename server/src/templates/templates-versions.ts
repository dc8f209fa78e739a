// The templates versions a pinned environment can use (an environment's `templatesPin`, docs/updating.md).
//
// A templates directory (TEMPLATES_DIR) cannot go back to an earlier version, so every version IES
// generates from is kept here (collection `templatesVersions`, `_id` = the templates commit, the
// files as one zip): an environment pinned to the version it was generated from keeps generating
// from it while the directory changes. A templates repository (TEMPLATES_REPO) holds its own
// history: a pin there names a commit or a tag, read from the cached clone (fetched on demand).
import { Binary, type Collection, type Db } from 'mongodb'
import { unzipToFiles, zipTree, type InputFile } from '@ies/processor-lib'
import { INLINE_LIMIT_BYTES, UNZIP_LIMITS } from '../core/archive-limits.ts'
import type { Templates, TemplatesSource } from './source.ts'

interface VersionDoc {
  _id: string
  keptAt: Date
  zip: Binary
}

export class TemplatesVersionStore {
  private readonly collection: Collection<VersionDoc>
  /** Versions known to be stored (by this process): each is written once. */
  private readonly stored = new Set<string>()

  constructor(db: Db) {
    this.collection = db.collection<VersionDoc>('templatesVersions')
  }

  /** Keeps the version unless it is kept already; false when it is too large to keep. */
  async keep(templates: Templates): Promise<boolean> {
    if (this.stored.has(templates.commit)) return true
    if (await this.collection.findOne({ _id: templates.commit }, { projection: { _id: 1 } })) {
      this.stored.add(templates.commit)
      return true
    }
    const zip = await zipTree(templates.inputs)
    if (zip.length > INLINE_LIMIT_BYTES) return false
    await this.collection
      .insertOne({ _id: templates.commit, keptAt: new Date(), zip: new Binary(zip) })
      .catch((err: { code?: unknown }) => {
        if (err.code !== 11000) throw err // kept meanwhile by another replica
      })
    this.stored.add(templates.commit)
    return true
  }

  async has(commit: string): Promise<boolean> {
    return this.stored.has(commit) || (await this.collection.findOne({ _id: commit }, { projection: { _id: 1 } })) !== null
  }

  /** The kept files of a version, or null. */
  async files(commit: string): Promise<InputFile[] | null> {
    const doc = await this.collection.findOne({ _id: commit })
    if (!doc) return null
    return unzipToFiles(Buffer.from(doc.zip.buffer), UNZIP_LIMITS)
  }
}

/** The 400 details of a pin that names no templates version (none when it does, or there is no pin). */
export async function templatesPinErrors(
  templates: TemplatesSource,
  pin: string | undefined,
): Promise<{ field: string; message: string }[]> {
  if (pin === undefined || (await templates.version(pin))) return []
  return [{ field: 'templatesPin', message: `names no templates version IES can generate from: ${describePinnable(templates)}` }]
}

/** Which versions a source can be pinned to, for a message. */
const describePinnable = (templates: TemplatesSource) =>
  templates.origin.includes('://')
    ? "give a commit of the templates repository's main branch or one of its tags"
    : 'give the templatesCommit of a generation or push (the templates folder keeps each version IES generated from)'
