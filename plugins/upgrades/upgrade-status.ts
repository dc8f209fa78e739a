// GET /api/environments/upgrades for one user in a few `_id` reads whatever their number of
// environments: the user's upgrade status document (server/src/jobs/upgrades/upgrade-status-store.ts:
// the last pushes, and what the status takes from each environment) and the user's environment
// summary (plugins/environments/summaries.ts: each environment's version), read side by side. An
// environment whose line is missing or older than its summary entry, or all of them when the
// catalog changed, is read again (by `_id`) and its line stored for the next read.
import type { FastifyBaseLogger } from 'fastify'
import { setImmediate } from 'node:timers/promises'
import pMap from 'p-map'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import type { TemplatesSource } from '@ies/server/templates/source'
import { processorInput } from '@ies/server/jobs/generation/transform'
import { currentTemplatesCommit, inputHash, pinnedVersions, templatesBehind } from '@ies/server/jobs/push/push-records'
import type { EnvLine, UpgradeStatusStore } from '@ies/server/jobs/upgrades/upgrade-status-store'
import type { EnvironmentRecord } from '../environments/record.ts'
import type { EnvironmentRepository } from '../environments/repository.ts'
import type { Static } from '@sinclair/typebox'
import type { Upgradable as UpgradableSchema } from '@ies/api/schemas/upgrades'

type Upgradable = Static<typeof UpgradableSchema>

/** Environment records read at a time when lines are (re)built. */
const RECORD_READS = 8
/** Above this many stale lines the user's records are read in one query. */
const SCAN_FROM = 100
/** Environment lines made between two turns of the event loop. */
const LINES_PER_TURN = 20
/** How long a read waits for up to SCAN_FROM stale lines (about 0.4 s of catalog checks idle). */
const FEW_LINES_WAIT_MS = 10_000
/** How long a read waits, in all, for its document or more than SCAN_FROM lines being built before it answers from what is there. */
const WAIT_MS = 1000

export interface StatusSources {
  environments: EnvironmentRepository
  store: UpgradeStatusStore
  templates: TemplatesSource
  /** The current catalog's typed view and commit, or null when there is no usable catalog. */
  catalog(log: FastifyBaseLogger): Promise<{ view: TypedCatalog; commit: string } | null>
}

/** The stored values the catalog refuses, as the status lists them. */
export function problemsOf(environments: EnvironmentRepository, env: EnvironmentRecord, catalog: TypedCatalog | null) {
  return catalog ? environments.storedValueProblems(env, catalog).map((p) => ({ field: p.field, reason: p.message })) : []
}

const lineOf = (environments: EnvironmentRepository, env: EnvironmentRecord, catalog: TypedCatalog | null): EnvLine => ({
  id: env._id,
  version: env.version ?? 0,
  updatedAt: env.updatedAt.getTime(),
  inputHash: inputHash(processorInput(env)),
  pin: env.templatesPin ?? '',
  problems: problemsOf(environments, env, catalog),
})

/** The user's status so far: the lines made, and how many of the user's environments still wait for theirs. */
export interface UpgradeStatus {
  items: Upgradable[]
  /** Environments whose line is being (re)built in the background: their entry is as last stored, or absent. */
  pending: number
}

/** A build of stale lines, one per owner at a time in this process (see `buildLines`). */
interface Build {
  /** The lines made so far, by environment id. */
  made: Map<string, EnvLine>
  done: Promise<void>
}

/** Background work under way, by sources and key: a read while it runs joins it. */
const running = new WeakMap<StatusSources, Map<string, Build>>()

function once(sources: StatusSources, key: string, start: (made: Map<string, EnvLine>) => Promise<void>, log: FastifyBaseLogger): Build {
  const mine = running.get(sources) ?? new Map<string, Build>()
  running.set(sources, mine)
  const known = mine.get(key)
  if (known) return known
  const made = new Map<string, EnvLine>()
  const done = start(made)
    .catch((err: Error) => log.warn({ err: { message: err.message } }, 'upgrade status: could not be built; the next read tries again'))
    .finally(() => mine.delete(key))
  const build = { made, done }
  mine.set(key, build)
  return build
}

/** True when `work` ended within `ms`. */
async function within(work: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const ended = await Promise.race([work.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))])
  clearTimeout(timer)
  return ended
}

/**
 * The owner's stale lines, made in the background: the records read (one query when many), each
 * environment's catalog check 20 to an event-loop turn, and the lines stored with the fresh ones when done.
 */
function buildLines(
  sources: StatusSources,
  userId: string,
  fresh: EnvLine[],
  stale: string[],
  catalog: { view: TypedCatalog; commit: string } | null,
  log: FastifyBaseLogger,
): Build {
  const { environments, store } = sources
  return once(
    sources,
    `lines\t${userId}`,
    async (made) => {
      const staleIds = new Set(stale)
      // Many stale lines (a first read, a new catalog): one query for the user's records, not a read each.
      const records =
        stale.length > SCAN_FROM
          ? (await environments.allRecords(userId)).filter((env) => staleIds.has(env._id))
          : await pMap(stale, (id) => environments.get(userId, id), { concurrency: RECORD_READS })
      for (let i = 0; i < records.length; i++) {
        const env = records[i]
        if (env) made.set(env._id, lineOf(environments, env, catalog?.view ?? null))
        // The catalog check of an environment with every service takes milliseconds: others' requests go between.
        if (i % LINES_PER_TURN === LINES_PER_TURN - 1) await setImmediate()
      }
      await store.storeEnvs(userId, [...fresh, ...made.values()], catalog?.commit)
    },
    log,
  )
}

/**
 * The user's pushed environments that are behind (templates or configuration), as GET /upgrades lists
 * them. Lines to (re)build (a first read, changed environments, a new catalog) are built in the
 * background; the read waits for them up to WAIT_MS, then answers with the lines made so far and the
 * others as last stored, and counts those in `pending`. No request waits for thousands of catalog checks.
 */
export async function upgradeStatusOf(sources: StatusSources, userId: string, log: FastifyBaseLogger): Promise<UpgradeStatus> {
  const { environments, store, templates } = sources
  const deadline = Date.now() + WAIT_MS
  const summaryRead = environments.summaries.read(userId)
  // Read side by side; the status waits for the summary only to drop deleted environments' lines.
  const liveIds = summaryRead.then((s) => new Set(s.entries.map((e) => e.id)))
  liveIds.catch(() => {}) // a failed summary read fails the request below
  const [summary, catalog, found] = await Promise.all([summaryRead, sources.catalog(log), store.read(userId, liveIds, false)])
  let stored = found
  if (!stored) {
    // No document (a database from before it, an owner who has not pushed since): its push lines are
    // built in the background (one query of the owner's last pushes); until then nothing is listed.
    const building = once(sources, `pushes\t${userId}`, async () => void (await store.read(userId)), log)
    if (await within(building.done, deadline - Date.now())) stored = await store.read(userId, liveIds, false)
    if (!stored) return { items: [], pending: summary.entries.length }
  }
  // Without a catalog (unavailable) the problems found with the last one stand.
  const sameCatalog = !catalog || stored.catalogCommit === catalog.commit
  const fresh: EnvLine[] = []
  const stale: string[] = []
  for (const entry of summary.entries) {
    const line = stored.envs.get(entry.id)
    if (line && sameCatalog && line.version === entry.version && line.updatedAt === entry.updatedAt.getTime()) fresh.push(line)
    else stale.push(entry.id)
  }
  const lines = [...fresh]
  let pending = 0
  if (stale.length > 0 || stored.envs.size !== fresh.length) {
    const build = buildLines(sources, userId, fresh, stale, catalog, log)
    // A few lines (an environment changed) cost little: the read waits for them (bounded: it may have joined a larger build).
    await within(build.done, stale.length <= SCAN_FROM ? FEW_LINES_WAIT_MS : deadline - Date.now())
    for (const id of stale) {
      const line = build.made.get(id)
      if (line) lines.push(line)
      else {
        pending++
        const last = stored.envs.get(id)
        if (last) lines.push(last)
      }
    }
  }

  let newest: Promise<string | null> | undefined
  const templatesCommit = () => (newest ??= currentTemplatesCommit(templates, log))
  const versions = pinnedVersions(templates)
  const names = new Map(summary.entries.map((e) => [e.id, e.name]))
  // What the templates are behind depends only on the pin and the pushed commit: once per pair.
  const pairOf = (line: EnvLine, push: { templatesCommit: string }) => `${line.pin}\t${push.templatesCommit}`
  const pairs = new Map<string, Awaited<ReturnType<typeof templatesBehind>>>()
  for (const line of lines) {
    const push = stored.pushes.get(line.id)
    if (push && !pairs.has(pairOf(line, push)))
      pairs.set(pairOf(line, push), await templatesBehind(line.pin || undefined, push.templatesCommit, templatesCommit, versions))
  }
  const out: Upgradable[] = []
  for (const line of lines) {
    const push = stored.pushes.get(line.id)
    if (!push) continue
    const behind = { ...pairs.get(pairOf(line, push))!, configuration: push.inputHash !== line.inputHash }
    if (!behind.templates && !behind.configuration) continue
    const { inputHash: _hash, pushedAt, ...lastPush } = push
    out.push({
      id: line.id,
      name: names.get(line.id) ?? '',
      lastPush: { ...lastPush, pushedAt: pushedAt.toISOString() },
      behind,
      ...(line.pin && { templatesPin: line.pin }),
      problems: line.problems,
    })
  }
  return { items: out, pending }
}
