// The templates' migrations (processor-lib/src/migrations, files `migrations/*.yaml` of the
// templates tree) as the templates source holds them: read once per templates commit, in order.
// Jobs apply them (jobs/generation/migrations.ts); environment updates read them too.
import { parseMigrations, type Migration } from '@ies/processor-lib/migrations/index'
import { JobFailure } from '../core/job-failure.ts'
import type { TemplatesSource } from './source.ts'

/**
 * The migrations of a templates version (a pinned environment's commit or tag), default the newest,
 * in order: a pinned environment runs only those of the version it generates with.
 */
export type MigrationsSource = (version?: string) => Promise<Migration[]>

/** Reads the migrations of `source`, parsed once per templates commit. A malformed file is MIGRATION_INVALID. */
export function templatesMigrations(source: TemplatesSource): MigrationsSource {
  let cached: { commit: string; migrations: Migration[] } | undefined
  return async (version) => {
    const templates = version === undefined ? await source.load() : await source.version(version)
    // A version that cannot be found fails the generation itself (TEMPLATES_VERSION_UNAVAILABLE): none here.
    if (!templates) return []
    const { commit, inputs } = templates
    if (cached?.commit === commit) return cached.migrations
    const { migrations, problems } = parseMigrations(inputs)
    if (problems.length > 0) {
      const [p] = problems
      throw new JobFailure('MIGRATION_INVALID', `The templates' migration ${p.file} is not valid at line ${p.line}: ${p.message}`, {
        problems,
      })
    }
    cached = { commit, migrations }
    return migrations
  }
}
