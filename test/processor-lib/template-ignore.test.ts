// The templates' ignore file (.iesignore): what it lists is never output, wherever a tree is turned
// into output (processing, the gate, the author checks, the processor service over HTTP), and the
// author checks report a pattern that matches nothing and a README that is the authors' guide.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import {
  buildProcessorService,
  extractCatalog,
  lintTree,
  processFiles,
  runGate,
  unzipToFiles,
  zipTree,
  type InputFile,
} from '@ies/processor-lib'
import { handoverFindings, ignoreFindings, outputEntries } from '@ies/processor-lib/template-ignore'
import { selectInputs } from '@ies/processor-lib/tree'

const HANDOVER = '# Infrastructure environment\n\nWhat this repository holds.\n'
const GUIDE = '# For template authors\n\n```hcl\n# @param services.kms.deletionWindowDays | displayName=Days\n```\n'

const tree: Record<string, string> = {
  '.iesignore': '# notes for authors\nAUTHORS.md\nnotes/\n*.draft.yaml\n!keep.draft.yaml\n',
  'AUTHORS.md': GUIDE,
  'README.md': HANDOVER,
  'notes/broken.yaml': '# @param name\nx: |\n  refused if it were processed\n',
  'terraform/terraform.tfvars': '# @param name | displayName=Name\nname = "demo"\n',
  'values/a.draft.yaml': 'draft: true\n',
  'values/keep.draft.yaml': '# @param name\nname: demo\n',
}

const inputs = (files: Record<string, string>): InputFile[] =>
  Object.entries(files).map(([path, text]) => ({ path, content: Buffer.from(text), mode: 0o644 }))

async function writeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'ies-ignore-'))
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true })
    await writeFile(join(root, p), c)
  }
  return root
}

const OUTPUT = ['README.md', 'terraform/terraform.tfvars', 'values/keep.draft.yaml']

t.test('the ignore file leaves out what it lists (gitignore syntax) and itself', async (t) => {
  t.same(
    outputEntries(inputs(tree)).map((f) => f.path),
    OUTPUT,
  )
  t.same(
    outputEntries(inputs({ 'a.md': 'x', 'b.md': 'y' })).map((f) => f.path),
    ['a.md', 'b.md'],
    'without an ignore file everything is output',
  )
  t.same(
    selectInputs(inputs(tree), ['terraform/', 'notes/']).map((f) => f.path),
    ['terraform/terraform.tfvars'],
    'selecting folders keeps the ignore file in force (it lies outside them)',
  )
})

t.test('processing: ignored files are neither processed nor output', async (t) => {
  const result = processFiles(inputs(tree), { name: 'shop' })
  t.ok(result.ok, 'the ignored broken YAML is not processed, so nothing is refused')
  t.same(
    result.files.map((f) => f.path),
    OUTPUT,
  )
  t.equal(result.inputCount, 3, 'the count is of the files that are output')
  t.equal(String(result.files.find((f) => f.path === 'values/keep.draft.yaml')?.content), '# @param name\nname: shop\n')
})

t.test('the gate and the author checks read the same tree', async (t) => {
  const root = await writeTree(tree)
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const gate = await runGate({ templatesDir: root, config: { name: 'shop' } })
  t.same(gate.findings, [], 'no MISSING_OUTPUT for the ignored files, no finding from them')
  t.same(
    gate.process.files.map((f) => f.path),
    OUTPUT,
  )
  const lint = await lintTree({ templatesDir: root, provider: 'aws' })
  t.same(lint.findings, [])
})

t.test('a parameter-values file the ignore file lists is refused by the extractor, and reported by the author checks', async (t) => {
  const root = await writeTree({ ...tree, '.iesignore': 'terraform/\n' })
  t.teardown(() => rm(root, { recursive: true, force: true }))
  await t.rejects(extractCatalog({ templatesDir: root, provider: 'aws' }), {
    code: 'BAD_PARAMS_FILE',
    message: 'the parameter-values file terraform/terraform.tfvars is listed in .iesignore, so it is not a template',
  })
  const lint = await lintTree({ templatesDir: root, provider: 'aws' })
  t.match(
    lint.findings.filter((f) => f.code === 'READ_FAILED'),
    [{ file: 'terraform/terraform.tfvars', message: /no parameter-values file/ }],
  )
})

t.test('author checks: a pattern that matches nothing, a negation that re-includes nothing', async (t) => {
  const files = inputs({ ...tree, '.iesignore': 'AUTHORS.md\n\n# a typo\nAUTHOR.md\nnotes/\n!notes/none.md\n!README.md\n' })
  t.same(
    ignoreFindings(files).map((f) => [f.code, f.severity, f.file, f.line, f.message]),
    [
      ['IGNORE_UNMATCHED', 'warning', '.iesignore', 4, '"AUTHOR.md" matches no file of the tree'],
      ['IGNORE_UNMATCHED', 'warning', '.iesignore', 6, '"!notes/none.md" re-includes no file the patterns above it ignore'],
      ['IGNORE_UNMATCHED', 'warning', '.iesignore', 7, '"!README.md" re-includes no file the patterns above it ignore'],
    ],
  )
  t.same(ignoreFindings(inputs(tree)), [], 'every pattern of the example matches')
})

t.test("author checks: a README the generation outputs is the hand-over, not the authors' guide", async (t) => {
  const file = (text: string) => [{ path: 'README.md', content: Buffer.from(text) }]
  t.same(handoverFindings(file(HANDOVER)), [])
  t.match(handoverFindings(file(GUIDE)), [
    { code: 'AUTHORS_GUIDE_OUTPUT', file: 'README.md', line: 1, message: /a heading for template authors/ },
  ])
  t.match(handoverFindings(file('# Repo\n\nText.\n\n    # @section services.eks.enabled begin\n')), [
    { code: 'AUTHORS_GUIDE_OUTPUT', line: 5, message: /@section decorator/ },
  ])
  t.match(handoverFindings(file('# Repo\n\n# @module services.kms | displayName=KMS\n')), [{ line: 3, message: /decorator written out/ }])
  t.same(handoverFindings([{ path: 'docs/guide.md', content: Buffer.from(GUIDE) }]), [], 'only READMEs are judged')

  const root = await writeTree({ ...tree, 'README.md': GUIDE, 'AUTHORS.md': HANDOVER })
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const lint = await lintTree({ templatesDir: root, provider: 'aws' })
  t.same(
    lint.findings.map((f) => `${f.file}:${f.line} ${f.code}`),
    ['README.md:1 AUTHORS_GUIDE_OUTPUT'],
    'the tree whose README is the guide is reported; the ignored file is not judged',
  )
})

t.test('the processor service applies the ignore file on every route, with and without include', async (t) => {
  const root = await writeTree(tree)
  const app = await buildProcessorService({ token: 'test-token-0123456789', templatesRoot: dirname(root), catalogDir: root })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => {
    await app.close()
    await rm(root, { recursive: true, force: true })
  })
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': 'test-token-0123456789' },
      body: JSON.stringify(body),
    })
    t.equal(res.status, 200, `${path}: ${res.status}`)
    return (await unzipToFiles(Buffer.from(await res.arrayBuffer()), { maxFiles: 100, maxBytes: 1 << 20 })).map((f) => f.path)
  }
  const templates = root.slice(dirname(root).length + 1)
  t.same(await post('/process', { templates, config: { name: 'shop' }, format: 'zip' }), OUTPUT)
  t.same(await post('/process', { templates, config: { name: 'shop' }, format: 'zip', include: ['values/', 'notes/'] }), [
    'values/keep.draft.yaml',
  ])
  const archive = (await zipTree(inputs(tree).map((f) => ({ ...f, content: f.content })))).toString('base64')
  t.same(await post('/process-upload', { archive, config: { name: 'shop' }, format: 'zip' }), OUTPUT)
})
