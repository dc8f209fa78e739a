// Migrations declared in the templates (`migrations/*.yaml`): how stored configurations move when
// the templates rename, split, retype or remove a field, drop an option or change a default.
// parse.ts reads the files, catalog.ts checks them against the current catalog, apply.ts runs them.
export { applyMigrations, pendingMigrations, type ConfigurationChange, type MigrationProblem, type MigrationResult } from './apply.ts'
export { migrationCatalogProblems } from './catalog.ts'
export {
  isMigrationFile,
  MIGRATIONS_DIR,
  parseMigration,
  parseMigrations,
  type MigrationFileProblem,
  type ParsedMigrations,
} from './parse.ts'
export type { Migration, Step, StepKind } from './steps.ts'
