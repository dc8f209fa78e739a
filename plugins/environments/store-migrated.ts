// Storing what the templates' migrations the environment has not run make of its configuration, and
// their ids (a push that pushed asks, through the jobs' `storeMigrated`): a versioned write of the
// record as read now (a change made since the push is migrated too) under the owner's lock, retried
// on a lost race like `updating` (writes.ts); the history hears of it through the migrated hooks.
import { ownerLock } from '@ies/server/core/keyed-mutex'
import { replaceAtVersion } from '@ies/server/core/versioned-write'
import { migrateEnvironment } from '@ies/server/jobs/generation/migrations'
import type { Migration } from '@ies/processor-lib/migrations/index'
import type { Environment } from '@ies/api/schemas/environments'
import { toEnvironment, type EnvironmentRecord } from './record.ts'
import { toStored } from './stored-form.ts'
import type { MoveParts } from './owner-move.ts'
import { nextUpdatedAt, pauseBeforeRetry, UPDATE_ATTEMPTS, VersionConflict } from './write-retry.ts'

/** Called after a push stored what the templates' migrations made of an environment. */
export type EnvironmentMigratedHook = (
  before: Environment,
  after: Environment,
  by: { userId: string; jobId?: string },
) => Promise<void> | void

type MigrateParts = Pick<MoveParts, 'db' | 'collection' | 'derived' | 'get'>

/** MIGRATION_FAILED when a value cannot be moved; nothing is written when no migration applies. */
export async function storeMigrated(
  parts: MigrateParts,
  hooks: readonly EnvironmentMigratedHook[],
  target: { userId: string; id: string },
  all: readonly Migration[],
  by: { userId: string; jobId?: string },
): Promise<void> {
  const { db, collection, derived } = parts
  const { userId, id } = target
  await ownerLock(db, userId, async () => {
    for (let n = 1; ; n++) {
      const stored = await parts.get(userId, id)
      if (!stored) return
      const migrated = migrateEnvironment(stored, all)
      if (migrated.applied.length === 0) return
      const doc: EnvironmentRecord = {
        ...migrated.env,
        migrations: migrated.migrations,
        version: (stored.version ?? 0) + 1,
        updatedAt: nextUpdatedAt(stored.updatedAt),
      }
      if (await replaceAtVersion(db, collection, stored.version, toStored(doc))) {
        await derived.written(userId, doc)
        for (const hook of hooks) await hook(toEnvironment(stored), toEnvironment(doc), by)
        return
      }
      if (n >= UPDATE_ATTEMPTS) throw new VersionConflict()
      await pauseBeforeRetry(n)
    }
  })
}
