// The last push of each environment to its branch, and of each environment and branch (collection
// `environmentPushes`, read by `_id` alone: FerretDB looks up only an exact `_id` cheaply), and what
// an environment is behind: the templates (the current templates commit differs from the last
// push's) and its configuration (the processor input differs from the one last pushed). Dry runs
// are not recorded.
import { createHash } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { JobEnvironment } from '../generation/transform.ts'
import { canonical } from './generation-record.ts'
import type { Behind, LastPush } from '@ies/api/schemas/push'
import type { Format, GenerateOptions } from '../generation/selection.ts'
import type { TemplatesSource } from '../../templates/source.ts'
import { processorInput, type ProcessorInput } from '../generation/transform.ts'
import { PushBases } from './push-bases.ts'
import { UpgradeStatusStore, type PushLine } from '../upgrades/upgrade-status-store.ts'

/** What is recorded of a push. */
interface PushFields {
  environmentId: string
  userId: string
  jobId: string
  commit: string
  branch: string
  templatesCommit: string
  /** What the push generated, so that an upgrade generates the same. */
  format: Format
  options: GenerateOptions
}

interface PushDoc extends PushFields {
  /** `<environment id>` for the environment's last push; `<environment id>:<branch>` per branch. */
  _id: string
  pushedAt: Date
  /** sha256 of the processor input pushed (canonical JSON). */
  inputHash: string
}

export interface PushedGeneration {
  format: Format
  options: GenerateOptions
}

export const inputHash = (input: ProcessorInput) => createHash('sha256').update(canonical(input)).digest('hex')

export class PushRecords {
  private readonly collection: Collection<PushDoc>
  /** The generated files each push's merge may need as its base. */
  readonly bases: PushBases
  /** Each user's last pushes in one document, for the upgrade status. */
  readonly status: UpgradeStatusStore

  constructor(db: Db) {
    this.collection = db.collection<PushDoc>('environmentPushes')
    this.bases = new PushBases(db)
    this.status = new UpgradeStatusStore(db, this.collection as unknown as Collection<PushLine & { _id: string; userId: string }>)
  }

  async record(
    push: PushFields & {
      input: ProcessorInput
      /** False for a push to a review branch: the environment's own branch did not receive it. */
      ofEnvironment: boolean
    },
  ): Promise<void> {
    const { input, ofEnvironment, ...fields } = push
    const doc = { ...fields, pushedAt: new Date(), inputHash: inputHash(input) }
    const ids = [`${push.environmentId}:${push.branch}`, ...(ofEnvironment ? [push.environmentId] : [])]
    await Promise.all(ids.map((_id) => this.collection.replaceOne({ _id }, doc, { upsert: true })))
    if (ofEnvironment) await this.status.pushed(push.userId, push.environmentId, doc)
  }

  /** The last push to the environment's own branch, or null. */
  async last(environmentId: string): Promise<(LastPush & PushedGeneration & { inputHash: string }) | null> {
    const doc = await this.collection.findOne({ _id: environmentId })
    if (!doc) return null
    return {
      jobId: doc.jobId,
      commit: doc.commit,
      branch: doc.branch,
      templatesCommit: doc.templatesCommit,
      pushedAt: doc.pushedAt.toISOString(),
      format: doc.format,
      options: doc.options,
      inputHash: doc.inputHash,
    }
  }

  /**
   * The indexes of `removeForEnvironment`'s query and of the upgrade status's build (by user: its
   * first read, upgrades/upgrade-status-store.ts) (test/server/query-indexes.test.ts).
   */
  async init(): Promise<void> {
    await this.collection.createIndex({ environmentId: 1 }, { name: 'environment' })
    await this.collection.createIndex({ userId: 1 }, { name: 'user' })
  }

  async removeForEnvironment(environmentId: string): Promise<void> {
    await Promise.all([this.collection.deleteMany({ environmentId }), this.bases.removeForEnvironment(environmentId)])
  }
}

/**
 * The `lastPush` and `behind` of an environment's view; `templatesCommit` answers the current one
 * (null when unknown), asked only for an environment that has been pushed.
 */
export async function upgradeStatus(
  records: Pick<PushRecords, 'last'>,
  env: JobEnvironment,
  templatesCommit: () => Promise<string | null>,
  versions?: PinnedVersions,
): Promise<{ lastPush: LastPush | null; behind: Behind; pushed: (PushedGeneration & LastPush) | null }> {
  const last = await records.last(env._id)
  if (!last) return { lastPush: null, behind: { templates: false, configuration: false }, pushed: null }
  const { format, options, inputHash: pushedHash, ...lastPush } = last
  const behind = await templatesBehind(env.templatesPin, last.templatesCommit, templatesCommit, versions)
  return {
    lastPush,
    behind: { ...behind, configuration: pushedHash !== inputHash(processorInput(env)) },
    pushed: { ...lastPush, format, options },
  }
}

/** How a view reads pinned versions (memoized per view, see `pinnedVersions`). */
export interface PinnedVersions {
  /** The commit a pin names, or null when it names none. */
  resolve(pin: string): Promise<string | null>
  distance(from: string, to: string): Promise<number | null>
}

/**
 * What the templates are behind: the version the environment uses (its pin, else the last push's)
 * against the newest, and by how many commits when the source knows (a templates repository).
 */
export async function templatesBehind(
  pin: string | undefined,
  pushedCommit: string,
  templatesCommit: () => Promise<string | null>,
  versions?: PinnedVersions,
): Promise<Pick<Behind, 'templates' | 'commits'>> {
  const newest = await templatesCommit()
  const used = (pin && (await versions?.resolve(pin))) || pushedCommit
  if (newest === null || newest === used) return { templates: false }
  const commits = await versions?.distance(used, newest)
  return { templates: true, ...(typeof commits === 'number' && { commits }) }
}

/** PinnedVersions of a templates source, each answer kept for the view's lifetime; failures read as unknown. */
export function pinnedVersions(templates: TemplatesSource): PinnedVersions {
  const resolved = new Map<string, Promise<string | null>>()
  const distances = new Map<string, Promise<number | null>>()
  const memo = <T>(map: Map<string, Promise<T | null>>, key: string, fn: () => Promise<T | null>) => {
    let known = map.get(key)
    if (!known) map.set(key, (known = fn().catch(() => null)))
    return known
  }
  return {
    resolve: (pin) => memo(resolved, pin, async () => (await templates.version(pin))?.commit ?? null),
    distance: (from, to) => memo(distances, `${from}:${to}`, () => templates.distance(from, to)),
  }
}

/** How long a view waits for the templates commit (a TEMPLATES_REPO asks its remote) before it uses the last one seen. */
export const TEMPLATES_COMMIT_WAIT_MS = 3000

const lastSeen = new WeakMap<TemplatesSource, string>()

/**
 * The templates commit a generation would use now (TEMPLATES_DIR or TEMPLATES_REPO, as generation
 * reads it). When the templates cannot be read, or not within `waitMs`, the last commit seen (null
 * before any), logged: a view still answers, and at once.
 */
export async function currentTemplatesCommit(
  templates: TemplatesSource,
  log: FastifyBaseLogger,
  waitMs = TEMPLATES_COMMIT_WAIT_MS,
): Promise<string | null> {
  const load = templates.load().then((t) => {
    lastSeen.set(templates, t.commit)
    return t.commit
  })
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)))
  try {
    const commit = await Promise.race([load, late])
    if (commit === null) log.warn(`the templates commit took longer than ${waitMs} ms; behind.templates uses the last one seen`)
    return commit ?? lastSeen.get(templates) ?? null
  } catch (err) {
    log.warn({ err: { message: (err as Error).message } }, 'could not read the templates commit; behind.templates uses the last one seen')
    return lastSeen.get(templates) ?? null
  } finally {
    clearTimeout(timer)
    load.catch(() => {})
  }
}
