// The templates' migrations as the jobs read them (server/src/jobs/generation/migrations.ts): parsed
// once per templates commit; a malformed file fails the job as MIGRATION_INVALID naming its file and
// line; the pending ones are applied in memory, and a value none can move is MIGRATION_FAILED.
import t from 'tap'
import { migrateEnvironment } from '@ies/server/jobs/generation/migrations'
import { templatesMigrations } from '@ies/server/templates/migrations'
import type { TemplatesSource } from '@ies/server/templates/source'
import { JobFailure } from '@ies/server/core/job-failure'

const file = (path: string, text: string) => ({ path, content: Buffer.from(text), mode: 0o644 })
const RENAME = file(
  'migrations/0001-a.yaml',
  'id: 0001-a\ndescription: d\nsteps:\n  - rename: { from: services.x.old, to: services.x.new }\n',
)

function source(commits: { commit: string; inputs: ReturnType<typeof file>[] }[]) {
  let loads = 0
  const src: TemplatesSource = {
    origin: 'test',
    load: async () => commits[Math.min(loads++, commits.length - 1)] as never,
    version: async (ref) => (commits.find((c) => c.commit === ref) as never) ?? null,
    distance: async () => null,
  }
  return src
}

t.test('parsed once per commit; a new commit is read again', async (t) => {
  const read = templatesMigrations(
    source([
      { commit: 'c1', inputs: [RENAME] },
      { commit: 'c1', inputs: [] },
      { commit: 'c2', inputs: [] },
    ]),
  )
  t.same(
    (await read()).map((m) => m.id),
    ['0001-a'],
  )
  t.same(
    (await read()).map((m) => m.id),
    ['0001-a'],
    'same commit: the parsed migrations are kept',
  )
  t.same(await read(), [], 'a new commit is parsed')
})

t.test("a pinned version's migrations are those of its own tree", async (t) => {
  const read = templatesMigrations(
    source([
      {
        commit: 'new',
        inputs: [RENAME, file('migrations/0002-b.yaml', 'id: 0002-b\ndescription: d\nsteps:\n  - drop: services.x.gone\n')],
      },
      { commit: 'old', inputs: [RENAME] },
    ]),
  )
  t.same(
    (await read('old')).map((m) => m.id),
    ['0001-a'],
    'the pinned commit: only the migrations it holds',
  )
  t.same(await read('unknown'), [], 'a version the source cannot find: none (the generation fails on it)')
})

t.test('a malformed migration is MIGRATION_INVALID at its file and line', async (t) => {
  const read = templatesMigrations(
    source([{ commit: 'c', inputs: [file('migrations/0002-b.yaml', 'id: 0002-b\ndescription: d\nsteps:\n  - move: {}\n')] }]),
  )
  const err = await read().catch((e: unknown) => e)
  t.ok(err instanceof JobFailure)
  t.match(err, { code: 'MIGRATION_INVALID', message: /migrations\/0002-b\.yaml is not valid at line 4: unknown step "move"/ })
})

t.test('pending migrations in memory; a value none can move is MIGRATION_FAILED', async (t) => {
  const [m] = await templatesMigrations(source([{ commit: 'c', inputs: [RENAME] }]))()
  const env = {
    _id: 'e',
    userId: 'u',
    name: 'n',
    globalPrefix: 'p',
    provider: 'aws',
    region: 'r',
    services: { x: { enabled: true, old: 1 } },
  }
  const migrated = migrateEnvironment(env, [m])
  t.same(migrated.env.services, { x: { enabled: true, new: 1 } })
  t.same(migrated.migrations, ['0001-a'])
  t.same(env.services, { x: { enabled: true, old: 1 } }, 'the stored environment is not changed')
  t.same(migrateEnvironment({ ...env, migrations: ['0001-a'] }, [m]).applied, [], 'nothing pending once run')
  const clash = { ...env, services: { x: { enabled: true, old: 1, new: 2 } } }
  t.throws(() => migrateEnvironment(clash, [m]), {
    code: 'MIGRATION_FAILED',
    message: /0001-a cannot move services\.x\.old: cannot move to services\.x\.new/,
  })
})
