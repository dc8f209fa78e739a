// Field relations (the catalog contract's relations.ts): declared by atLeast= / atMost= attributes in
// the templates, extracted into the catalog, checked alike by the API, the wizard and the assistant;
// the author lint reports a bound that names nothing usable, at its line.
import t from 'tap'
import { buildCatalog, extractCatalog } from '@ies/processor-lib'
import { converseProblem, relationDeclarationProblems, relationProblems } from '../../processor-lib/src/contract/relations.ts'
import { lintCatalog } from '../../processor-lib/src/lint.ts'
import { languageOf } from '../../processor-lib/src/languages.ts'
import { prepareCatalog, validateServices } from '../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'

const TFVARS = `# @module services.eks | displayName=EKS
# @param services.eks.enabled
eks_enabled = false
# @param services.eks.nodeMinSize | displayName=Minimum nodes | type=number | atMost=nodeMaxSize
eks_min = 2
# @param services.eks.nodeMaxSize | displayName=Maximum nodes | type=number
eks_max = 5
# @param services.eks.nodeDesiredSize | displayName=Initial nodes | type=number | atLeast=services.eks.nodeMinSize | atMost=nodeMaxSize
eks_desired = 2
# @param services.eks.retention | displayName=Retention | type=number | atLeast=1 | atMost=35
eks_retention = 7
`

const catalog = buildCatalog('terraform/terraform.tfvars', TFVARS, languageOf('terraform/terraform.tfvars')!, 'c0')

t.test('the extractor carries the relation attributes as written', async (t) => {
  t.match(catalog.services.eks.fields.nodeMinSize, { atMost: 'nodeMaxSize' })
  t.match(catalog.services.eks.fields.nodeDesiredSize, { atLeast: 'services.eks.nodeMinSize', atMost: 'nodeMaxSize' })
  t.same(catalog.errors, [])
})

t.test('relationProblems: contradictions of the values set or of the defaults', async (t) => {
  t.same(relationProblems(catalog, { services: { eks: { enabled: true } } }), [], 'the defaults hold')
  t.same(relationProblems(catalog, { services: { eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5 } } }), [
    {
      field: 'services.eks.nodeMinSize',
      other: 'services.eks.nodeMaxSize',
      message: 'must be at most Maximum nodes (5); it is 10',
      limit: 5,
    },
    {
      field: 'services.eks.nodeDesiredSize',
      other: 'services.eks.nodeMinSize',
      message: 'must be at least Minimum nodes (10); it is 2',
      limit: 10,
    },
  ])
  t.same(relationProblems(catalog, { services: { eks: { enabled: true, retention: 0 } } }), [
    { field: 'services.eks.retention', message: 'must be at least 1; it is 0', limit: 1 },
  ])
  t.same(
    relationProblems(catalog, { services: { eks: { enabled: false, nodeMinSize: 10, nodeMaxSize: 5 } } }),
    [],
    'a disabled service is not judged',
  )
  t.same(
    relationProblems(catalog, { services: { eks: { enabled: true, nodeMinSize: 'ten' } } }),
    [],
    'no number, no relation (the value check says why)',
  )
})

t.test('the wizard shows the relation at both fields, as a sentence', async (t) => {
  const prepared = prepareCatalog(catalog)
  const errors = validateServices({ eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5, nodeDesiredSize: 2, retention: 7 } }, prepared)
  t.same(errors, {
    'services.eks.nodeMinSize': 'Must be at most Maximum nodes (5); it is 10',
    'services.eks.nodeMaxSize': 'Must be at least Minimum nodes (10); it is 5',
    'services.eks.nodeDesiredSize': 'Must be at least Minimum nodes (10); it is 2',
  })
  const converse = converseProblem(
    catalog,
    { services: { eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5 } } },
    {
      field: 'services.eks.nodeMinSize',
      other: 'services.eks.nodeMaxSize',
      message: 'must be at most Maximum nodes (5); it is 10',
      limit: 5,
    },
  )
  t.same(converse, {
    field: 'services.eks.nodeMaxSize',
    other: 'services.eks.nodeMinSize',
    message: 'must be at least Minimum nodes (10); it is 5',
    limit: 10,
  })
  t.equal(
    converseProblem(catalog, { services: {} }, { field: 'services.eks.retention', message: 'must be at least 1; it is 0', limit: 1 }),
    null,
    'a numeric bound has no other side',
  )
})

t.test('the author lint: a bound naming no number field is BAD_RELATION at its line', async (t) => {
  const bad = TFVARS.replace('atMost=nodeMaxSize\neks_min', 'atMost=nodeMaximum\neks_min').replace(
    'atLeast=1 | atMost=35',
    'atLeast=services.eks.enabled',
  )
  const file = 'terraform/terraform.tfvars'
  const lang = languageOf(file)!
  const badCatalog = buildCatalog(file, bad, lang, 'c0')
  t.same(
    relationDeclarationProblems(badCatalog).map((p) => p.field),
    ['services.eks.nodeMinSize', 'services.eks.retention'],
  )
  const findings = lintCatalog(file, bad, lang, badCatalog).filter((f) => f.code === 'BAD_RELATION')
  t.same(
    findings.map((f) => [f.line, f.message]),
    [
      [
        4,
        '@param services.eks.nodeMinSize: atMost names services.eks.nodeMaxSize'.replace('nodeMaxSize', 'nodeMaximum') +
          ', which is not a field of the catalog',
      ],
      [10, '@param services.eks.retention: atLeast names services.eks.enabled, which is not a number field'],
    ],
  )
})

t.test('the bundled templates declare their relations without a finding', async (t) => {
  const doc = await extractCatalog({ templatesDir: 'templates', provider: 'aws' })
  t.same(relationDeclarationProblems(doc), [])
  t.match(doc.services.eks.fields.nodeDesiredSize, { atLeast: 'nodeMinSize', atMost: 'nodeMaxSize' })
  t.match(doc.services.rds.fields.allocatedStorage, { atMost: 'maxAllocatedStorage' })
})
