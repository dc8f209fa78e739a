// The migration engine (processor-lib/src/migrations): each kind of step on a stored configuration,
// a value it cannot move reported (field and reason), the pending list, the file parser's errors at
// their line, and the catalog check of the templates' own migrations.
import t from 'tap'
import {
  applyMigrations,
  migrationCatalogProblems,
  parseMigration,
  parseMigrations,
  pendingMigrations,
} from '@ies/processor-lib/migrations/index'
import { catalogView } from '@ies/processor-lib/contract/view'
import { lintTree, readTree } from '@ies/processor-lib'
import { join } from 'node:path'
import type { Migration } from '@ies/processor-lib/migrations/index'

const migration = (id: string, yaml: string): Migration => {
  const parsed = parseMigration(`migrations/${id}.yaml`, `id: ${id}\ndescription: test\nsteps:\n${yaml}`)
  if ('problem' in parsed) throw new Error(`${parsed.problem.line}: ${parsed.problem.message}`)
  return parsed.migration
}

const stored = () => ({
  name: 'shop-dev',
  region: 'eu-west-1',
  services: {
    eks: { enabled: true, nodeCount: 3, endpointPublicAccess: true, publicAccessCidrs: '' },
    rds: { enabled: true, engineVersion: '16.6', storageGb: '100', instance: 't4g.medium' },
    legacy: { enabled: false, flag: 'x' },
  },
})

t.test('each kind of step moves stored values', async (t) => {
  const m = migration(
    '0001-all',
    `  - rename: { from: services.eks.nodeCount, to: services.eks.nodeDesiredSize }
  - split: { from: services.rds.instance, into: [services.rds.family, services.rds.size], separator: "." }
  - map: { path: services.rds.engineVersion, values: { "16.6": "16", "15.10": null } }
  - default: { path: services.eks.endpointPublicAccess, from: true, to: false, when: { services.eks.publicAccessCidrs: ["", null] } }
  - default: { path: services.eks.nodeDiskSize, to: 50 }
  - default: { path: services.opensearch.engineVersion, to: "x" }
  - drop: { path: services.legacy.flag }
  - retype: { path: services.rds.storageGb, to: number }
`,
  )
  const before = stored()
  const result = applyMigrations(before, [m])
  t.same(result.problems, [])
  t.same(result.applied, ['0001-all'])
  t.same(result.configuration.services, {
    eks: { enabled: true, endpointPublicAccess: false, publicAccessCidrs: '', nodeDesiredSize: 3, nodeDiskSize: 50 },
    rds: { enabled: true, engineVersion: '16', storageGb: 100, family: 't4g', size: 'medium' },
    legacy: { enabled: false },
  })
  t.same(stored(), before, 'the stored configuration given is not changed')
  const fields = result.changes.map((c) => c.field)
  t.same(fields, [...fields].sort(), 'changes in path order')
  t.same(
    result.changes.find((c) => c.field === 'services.eks.endpointPublicAccess'),
    { field: 'services.eks.endpointPublicAccess', before: true, after: false },
  )
  t.same(
    result.changes.find((c) => c.field === 'services.legacy.flag'),
    { field: 'services.legacy.flag', before: 'x' },
  )
  t.same(
    result.changes.find((c) => c.field === 'services.eks.nodeDiskSize'),
    { field: 'services.eks.nodeDiskSize', after: 50 },
  )
  t.notOk(
    (result.configuration.services as Record<string, unknown>).opensearch,
    'a default is not set in a service the environment does not have',
  )
})

t.test('a default changes only the old default or a missing value, where its condition holds', async (t) => {
  const m = migration(
    '0001-eks',
    `  - default: { path: services.eks.endpointPublicAccess, from: true, to: false, when: { services.eks.publicAccessCidrs: ["", null] } }\n`,
  )
  const withCidrs = { services: { eks: { endpointPublicAccess: true, publicAccessCidrs: '203.0.113.0/24' } } }
  t.same(applyMigrations(withCidrs, [m]).changes, [], 'a public endpoint with an allow-list stays')
  const chosen = { services: { eks: { endpointPublicAccess: false } } }
  t.same(applyMigrations(chosen, [m]).changes, [])
  const missing = { services: { eks: { enabled: true } } }
  t.same(applyMigrations(missing, [m]).configuration, { services: { eks: { enabled: true, endpointPublicAccess: false } } })
})

t.test('a value a step cannot move is reported, never guessed', async (t) => {
  const m = migration(
    '0002-pg',
    `  - map: { path: services.rds.engineVersion, values: { "15.10": null, "16.6": "16" } }
  - retype: { path: services.rds.storageGb, to: number }
  - split: { from: services.rds.instance, into: [services.rds.family, services.rds.size], separator: "/" }
  - rename: { from: services.eks.nodeCount, to: services.eks.nodeDesiredSize }
`,
  )
  const env = {
    services: {
      rds: { engineVersion: '15.10', storageGb: 'lots', instance: 'db.t4g.medium' },
      eks: { nodeCount: 3, nodeDesiredSize: 4 },
    },
  }
  const result = applyMigrations(env, [m])
  t.same(
    result.problems.map((p) => [p.field, p.migration]),
    [
      ['services.rds.engineVersion', '0002-pg'],
      ['services.rds.storageGb', '0002-pg'],
      ['services.rds.instance', '0002-pg'],
      ['services.eks.nodeCount', '0002-pg'],
    ],
  )
  t.match(result.problems[0].message, /"15\.10" is no longer offered and has no successor/)
  t.match(result.problems[1].message, /"lots" cannot be read as a number/)
  t.match(result.problems[3].message, /holds 4 already/)
  t.equal(result.configuration.services.rds.engineVersion, '15.10', 'the value is left as it was')
  t.same(applyMigrations({ services: { rds: { engineVersion: '17' } } }, [m]).changes, [], 'a value the map does not name stays')
})

t.test('pending: the migrations whose ids have not run, in order', async (t) => {
  const [a, b, c] = ['0001-a', '0002-b', '0003-c'].map((id) => migration(id, '  - drop: { path: services.x.y }\n'))
  t.same(
    pendingMigrations([a, b, c], ['0002-b']).map((m) => m.id),
    ['0001-a', '0003-c'],
  )
  t.same(
    pendingMigrations([a, b, c], undefined).map((m) => m.id),
    ['0001-a', '0002-b', '0003-c'],
  )
})

t.test('a file that is not a migration is refused at its line', async (t) => {
  const bad = (text: string) => {
    const r = parseMigration('migrations/0009-x.yaml', text)
    return 'problem' in r ? r.problem : null
  }
  t.match(bad('id: x\ndescription: d\nsteps:\n  - renam: { from: a, to: b }\n'), { line: 4, message: /unknown step "renam"/ })
  t.match(bad('id: x\ndescription: d\nsteps:\n  - rename:\n      from: a\n      too: b\n'), { line: 6, message: /no "too"/ })
  t.match(bad('id: x\ndescription: d\nsteps:\n  - drop: { path: gitRepository.deployKey.x }\n'), {
    line: 4,
    message: /not a configuration path/,
  })
  t.match(bad('id: x\ndescription: d\nsteps:\n  - retype: { path: region, to: integer }\n'), { line: 4, message: /to must be one of/ })
  t.match(bad('id: X Y\ndescription: d\nsteps: []\n'), { line: 1, message: /lowercase/ })
  t.match(bad('id: x\ndescription: d\nsteps:\n  - drop: { path: region }\n  - rename: { from: name, to: domain }\n'), {
    line: 5,
    message: /"name" cannot change after an environment is created/,
  })
  t.match(bad('id: x\nsteps: [\n'), { message: /not YAML/ })
  const twice = parseMigrations([
    { path: 'migrations/0002-b.yaml', content: 'id: same\ndescription: d\nsteps:\n  - drop: { path: region }\n' },
    { path: 'migrations/0001-a.yaml', content: 'id: same\ndescription: d\nsteps:\n  - drop: { path: region }\n' },
  ])
  t.same(
    twice.migrations.map((m) => m.file),
    ['migrations/0001-a.yaml'],
    'file-name order',
  )
  t.match(twice.problems, [{ file: 'migrations/0002-b.yaml', message: /already the id of migrations\/0001-a.yaml/ }])
})

t.test('the catalog check: paths and values of the current catalog, at their lines', async (t) => {
  const templatesDir = join(import.meta.dirname, '../../templates')
  const tree = await readTree(templatesDir)
  const catalog = catalogView((await lintTree({ templatesDir, provider: 'aws' })).catalog!).catalog
  const own = parseMigrations(tree.inputs)
  t.same(own.problems, [], "the templates' migrations parse")
  t.ok(own.migrations.length >= 2)
  t.same(migrationCatalogProblems(own.migrations, catalog), [], "the templates' migrations fit their catalog")

  const m = migration(
    '0003-x',
    `  - rename:
      from: services.eks.nodeCount
      to: services.eks.nodeCountt
  - map: { path: services.rds.engineVersion, values: { "16.6": "16.9" } }
  - rename: { from: services.rds.old, to: services.rds.interim }
`,
  )
  const later = migration('0004-y', '  - rename: { from: services.rds.interim, to: services.rds.engineVersion }\n')
  t.same(
    migrationCatalogProblems([m, later], catalog).map((p) => [p.line, p.message.replace(/: "16".*/, '')]),
    [
      [6, 'rename: the catalog has no field services.eks.nodeCountt'],
      [7, 'map: "16.9" for services.rds.engineVersion must be one of'],
    ],
    'a path a later migration moves on is no error',
  )
})
