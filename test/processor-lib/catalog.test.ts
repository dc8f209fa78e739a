// Catalog extraction: bucket rule, attributes as written (rule 8) and their three failures, commit.
import { execFileSync } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { DEFAULT_PARAMS_FILES, extractCatalog } from '@ies/processor-lib'

const here = dirname(fileURLToPath(import.meta.url))
const fixture = join(here, 'fixtures', 'catalog')
const expectedFile = join(here, 'fixtures', 'catalog.expected.json')

t.test('the catalog document matches the golden file', async (t) => {
  const catalog = await extractCatalog({ templatesDir: fixture, provider: 'aws', commit: 'fixture-commit' })
  const text = JSON.stringify(catalog, null, 2) + '\n'
  if (process.env.UPDATE_GOLDEN === '1') await writeFile(expectedFile, text)
  t.equal(text, await readFile(expectedFile, 'utf8'))
})

t.test('rules in the document', async (t) => {
  const c = await extractCatalog({ templatesDir: fixture, provider: 'aws', commit: 'x' })
  t.equal(c.schemaVersion, 1)
  t.same(Object.keys(c.global.fields), ['name', 'region', 'domain'])
  // rule 8: every attribute but options is a string, exactly as written; clients interpret it
  t.equal(c.services.eks.fields.enabled.default, 'true')
  t.equal(c.services.eks.fields.node_count.default, '3')
  t.equal(c.services.eks.fields.hidden.available, 'false')
  t.equal(c.services.rds.available, 'false')
  t.equal(c.services.eks.category, 'Compute')
  // no default attribute: the template's own value, typed by the template language
  t.equal(c.services.eks.fields.spot.type, 'toggle')
  t.equal(c.services.eks.fields.spot.default, false)
  t.equal(c.services.eks.fields.max_pods.type, 'number')
  t.equal(c.services.eks.fields.max_pods.default, 110)
  // what the extractor no longer judges: an unknown type, a default unfit for its type, an available
  // that is neither true nor false, options that are JSON but not a list of {value, label}, options
  // on a toggle, a dropdown without options; and an unknown attribute key is ignored
  t.same(c.services.s3.fields.badtype, { displayName: 'badtype', type: 'slider', default: 'x' })
  t.same(c.services.s3.fields.baddefault, { displayName: 'baddefault', type: 'number', default: 'many' })
  t.same(c.services.lambda.fields.flag, {
    displayName: 'flag',
    type: 'toggle',
    options: [{ value: true, label: 'On' }],
    default: true,
    available: 'maybe',
  })
  t.same(c.services.lambda.fields.shape, { displayName: 'shape', type: 'dropdown', options: { value: 1 }, default: '1' })
  t.same(c.services.lambda.fields.menu, { displayName: 'menu', type: 'dropdown', default: 'x' })
  t.same(c.services.lambda.fields.memory, { displayName: 'memory', type: 'number', default: '128' }, 'colour=blue is ignored')
  t.same(Object.keys(c.services.lambda), ['displayName', 'available', 'fields'], 'an unknown @module attribute is ignored too')
  // a service whose only parameter is malformed still appears with its enable toggle
  t.same(Object.keys(c.services.rds.fields), ['enabled'])
  t.same(c.services.rds.fields.enabled, { displayName: 'Enabled', type: 'toggle', default: false })
  t.same(Object.keys(c.services.s3.fields), ['enabled', 'badtype', 'baddefault'])
  const codes = c.errors.map((e) => `${e.line} ${e.code} ${e.path}`)
  t.same(codes, [
    '22 BAD_ATTRIBUTE services.rds.pattern', // `|` inside pattern splits the decorator (rule 9)
    '26 DUPLICATE_ATTRIBUTE services.s3.dup',
    '28 BAD_OPTIONS services.s3.opts',
    '30 BAD_ATTRIBUTE services.s3.noeq',
    '37 BAD_PATH foo.bar',
    '39 BAD_PATH services.sqs',
    '39 UNDECLARED_SERVICE services.sqs',
    '41 BAD_PATH services.sqs.a.b',
    '43 BAD_PATH name',
    '44 BAD_PATH services.sns.topic',
    '45 UNDECLARED_SERVICE services.orphan.size',
  ])
  for (const e of c.errors) {
    t.same(Object.keys(e), ['code', 'file', 'line', 'path', 'message'])
    t.equal(e.file, 'terraform/terraform.tfvars')
  }
})

t.test('keys named like Object properties are ordinary entries', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ies-cat-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(
    join(dir, 'a.tfvars'),
    '# @param constructor\nc = 1\n# @module services.__proto__\n# @param services.__proto__.__proto__ | type=number | default=2\nx = 1\n# @param services.__proto__.toString\ny = "z"\n',
  )
  const c = await extractCatalog({ templatesDir: dir, provider: 'aws', paramsFile: 'a.tfvars', commit: 'x' })
  const doc = JSON.parse(JSON.stringify(c))
  t.same(Object.keys(doc.global.fields), ['constructor'])
  t.same(Object.keys(doc.services), ['__proto__'])
  t.same(Object.keys(doc.services.__proto__.fields), ['enabled', '__proto__', 'toString'])
  t.equal(doc.services.__proto__.fields.__proto__.displayName, '__proto__')
  t.same(c.errors, [])
})

t.test('default parameter-values file, --params-file and unknown provider', async (t) => {
  t.equal(DEFAULT_PARAMS_FILES.aws, 'terraform/terraform.tfvars')
  const dir = await mkdtemp(join(tmpdir(), 'ies-cat-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'other.yaml'), '# @param region | displayName=Region\nregion: eu-west-1\n')
  const c = await extractCatalog({ templatesDir: dir, provider: 'aws', paramsFile: 'other.yaml' })
  t.equal(c.global.fields.region.default, 'eu-west-1')
  await t.rejects(extractCatalog({ templatesDir: dir, provider: 'aws' }), { code: 'MISSING_PARAMS_FILE' })
  await t.rejects(extractCatalog({ templatesDir: dir, provider: 'azure' }), { code: 'UNKNOWN_PROVIDER' })
  await t.rejects(extractCatalog({ templatesDir: dir, provider: 'aws', paramsFile: '../x.tfvars' }), { code: 'BAD_PARAMS_FILE' })
})

t.test('commit: git HEAD of the repository, else a content hash', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ies-cat-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(fixture, dir, { recursive: true })
  const hashed = await extractCatalog({ templatesDir: dir, provider: 'aws' })
  t.match(hashed.commit, /^sha256-[0-9a-f]{64}$/)
  const again = await extractCatalog({ templatesDir: dir, provider: 'aws' })
  t.equal(again.commit, hashed.commit, 'the content hash is stable')
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@e.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@e.invalid',
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env })
  execFileSync('git', ['add', '-A'], { cwd: dir, env })
  execFileSync('git', ['commit', '-q', '-m', 'x'], { cwd: dir, env })
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim()
  const c = await extractCatalog({ templatesDir: dir, provider: 'aws' })
  t.equal(c.commit, head)
})
