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

/** The user's pushed environments that are behind (templates or configuration), as GET /upgrades lists them. */
export async function upgradeStatusOf(sources: StatusSources, userId: string, log: FastifyBaseLogger): Promise<Upgradable[]> {
  const { environments, store, templates } = sources
  const summaryRead = environments.summaries.read(userId)
  // Read side by side; the status waits for the summary only to drop deleted environments' lines.
  const liveIds = summaryRead.then((s) => new Set(s.entries.map((e) => e.id)))
  liveIds.catch(() => {}) // a failed summary read fails the request below
  const [summary, catalog, stored] = await Promise.all([summaryRead, sources.catalog(log), store.read(userId, liveIds)])
  // Without a catalog (unavailable) the problems found with the last one stand.
  const sameCatalog = !catalog || stored.catalogCommit === catalog.commit
  const lines: EnvLine[] = []
  const stale: string[] = []
  for (const entry of summary.entries) {
    const line = stored.envs.get(entry.id)
    if (line && sameCatalog && line.version === entry.version && line.updatedAt === entry.updatedAt.getTime()) lines.push(line)
    else stale.push(entry.id)
  }
  const staleIds = new Set(stale)
  if (stale.length > 0 || stored.envs.size !== lines.length) {
    // Many stale lines (a first read, a new catalog): one query for the user's records, not a read each.
    const records =
      stale.length > SCAN_FROM
        ? (await environments.allRecords(userId)).filter((env) => staleIds.has(env._id))
        : await pMap(stale, (id) => environments.get(userId, id), { concurrency: RECORD_READS })
    for (let i = 0; i < records.length; i++) {
      const env = records[i]
      if (env) lines.push(lineOf(environments, env, catalog?.view ?? null))
      // The catalog check of an environment with every service takes milliseconds: others' requests go between.
      if (i % LINES_PER_TURN === LINES_PER_TURN - 1) await setImmediate()
    }
    await store.storeEnvs(userId, lines, catalog?.commit)
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
  return out
}
