// The configuration with the catalog's labels (review and detail), what
// an edit changes, what each generation format does with its options, and a generation's result.
import t from 'tap'
import { prepareCatalog } from '../../../../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import {
  displayValue,
  enabledServices,
  serviceChanges,
  settingChanges,
} from '../../../../../desktop/src/renderer/lib/environments/config-summary.ts'
import {
  differsFromForm,
  formatBytes,
  generationSummary,
  optionEffects,
} from '../../../../../desktop/src/renderer/lib/jobs/generate-options.ts'
import type { Job } from '../../../../../desktop/src/renderer/lib/api/types.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

const catalog = prepareCatalog(staticCatalog)
const eks = catalog.services.find((s) => s.key === 'eks')!
const field = (key: string) => eks.fields.find((f) => f.key === key)!

t.test('enabled services with labels; values as their widgets show them', async (t) => {
  const dropdown = eks.fields.find((f) => f.type === 'dropdown')!
  const services = {
    eks: { enabled: true, nodeMinSize: '3', [dropdown.key]: dropdown.options![0].value },
    rds: { enabled: false },
    legacy: { enabled: true, size: 3 },
  }
  const out = enabledServices(services, catalog)
  t.same(
    out.map((s) => s.key),
    ['eks', 'legacy'],
    'only what is enabled; a key the catalog does not know is kept',
  )
  t.equal(out[0].label, 'EKS')
  const min = out[0].fields.find((f) => f.key === 'nodeMinSize')!
  t.equal(min.label, field('nodeMinSize').label)
  t.not(min.label, 'nodeMinSize', 'a label, not the key')
  t.equal(out[0].fields.find((f) => f.key === dropdown.key)!.value, dropdown.options![0].label, "a dropdown shows its option's label")
  t.equal(displayValue(undefined, true), 'Yes')
  t.equal(displayValue(undefined, ''), '—')
  t.same(out[1].fields, [{ key: 'size', label: 'size', value: '3', isDefault: false }])
  const maxSize = out[0].fields.find((f) => f.key === 'nodeMaxSize')!
  t.same(
    [maxSize.value, maxSize.isDefault],
    [displayValue(field('nodeMaxSize'), field('nodeMaxSize').default), true],
    "a value not held is the template's default",
  )
})

t.test('what an edit changes, in words', async (t) => {
  const before = { eks: { enabled: true, nodeMinSize: '2' }, rds: { enabled: true } }
  const after = { eks: { enabled: true, nodeMinSize: '3' }, rds: { enabled: false }, s3: { enabled: true } }
  t.same(serviceChanges(before, after, catalog), [`EKS › ${field('nodeMinSize').label}: 2 → 3`, 'Disables RDS PostgreSQL', 'Enables S3'])
  t.same(
    settingChanges({ domain: 'a.com', region: 'eu-west-1' }, { domain: '', region: 'eu-west-1' }, { domain: 'Domain', region: 'Region' }),
    ['Domain: a.com → —'],
  )
})

t.test('options a format decides itself are shown as such', async (t) => {
  const all = { includeBackend: true, includeChart: false, includeGitops: false }
  t.same(optionEffects('terraform', all), {
    includeBackend: { effective: true },
    includeChart: { effective: false },
    includeGitops: { effective: false },
  })
  const argo = optionEffects('argocd', all)
  t.same(argo.includeGitops, { effective: true, note: 'Always part of Argo CD.' }, 'Argo CD without GitOps is not offered')
  t.match(argo.includeBackend, { effective: false, note: /belongs to the Terraform tree/ })
  t.match(optionEffects('helm', all).includeChart, { effective: true })
})

t.test('a generation result, and whether the form still asks for it', async (t) => {
  const job: Job = {
    id: 'j',
    type: 'generate',
    status: 'succeeded',
    result: {
      format: 'terraform',
      options: { includeBackend: false, includeChart: true, includeGitops: false },
      templatesCommit: 'abc',
      fileCount: 42,
      warnings: 0,
      archive: { filename: 'shop-terraform-abc.zip', size: 123_456, sha256: 'x' },
    },
  }
  t.same(generationSummary(job), {
    format: 'Terraform',
    fileCount: 42,
    size: '121 KB',
    templatesCommit: 'abc',
    filename: 'shop-terraform-abc.zip',
    warnings: 0,
  })
  t.equal(generationSummary({ ...job, status: 'running' }), null)
  t.notOk(differsFromForm(job, 'terraform', { includeBackend: false, includeChart: true, includeGitops: false }))
  t.ok(differsFromForm(job, 'helm', { includeBackend: false, includeChart: true, includeGitops: false }), 'another format')
  t.ok(differsFromForm(job, 'terraform', { includeBackend: true, includeChart: true, includeGitops: false }), 'another option')
  t.equal(formatBytes(512), '512 bytes')
  t.equal(formatBytes(5 * 1024 * 1024), '5.0 MB')
})
