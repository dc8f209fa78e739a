// Rule 10: with TRIM_DECORATOR_ATTRS=1 on the (embedded) processor, generated files keep every
// decorator line as `# @param <path>` without its attribute tail; without it the tails are copied.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR, loadConfig } from '@ies/server/config'
import { inProcessProcessor } from '@ies/server/jobs/generation/generation'
import { directorySource } from '@ies/server/templates/templates'
import { processorInput } from '@ies/server/jobs/generation/transform'
import { startTestApp } from '../../../harness/app.ts'
import { createEnvironment, generateAndWait, unzip } from '../../../harness/jobs.ts'

// Decorator lines, also those of disabled @section regions (commented out once more: `# # @param …`).
const DECORATOR = /^[\s#]*# @(param|module) [\w.-]+/
const WITH_TAIL = /^[\s#]*# @(param|module) [\w.-]+\s*\|/
const decorators = (text: string) => text.split('\n').filter((l) => DECORATOR.test(l))
/** `@param <path>…` without the comment markers before it. */
const core = (line: string) => line.replace(/^[\s#]*(?=@)/, '')

t.test('TRIM_DECORATOR_ATTRS: read as 1 or not', async (t) => {
  t.equal(loadConfig({}).generation.trimDecoratorAttrs, false, 'default: tails kept')
  t.equal(loadConfig({ TRIM_DECORATOR_ATTRS: '1' }).generation.trimDecoratorAttrs, true)
  t.equal(loadConfig({ TRIM_DECORATOR_ATTRS: '0' }).generation.trimDecoratorAttrs, false)
})

t.test('TRIM_DECORATOR_ATTRS=1: archives carry `# @param <path>` without tails', async (t) => {
  const source = await readFile(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), 'utf8')
  const sourceDecorators = decorators(source)
  t.ok(sourceDecorators.filter((l) => WITH_TAIL.test(l)).length > 10, 'the templates have decorators with attribute tails')

  const { url, auth } = await startTestApp(t, { TRIM_DECORATOR_ATTRS: '1' })
  const env = await createEnvironment({ url, auth })
  const done = await generateAndWait({ url, auth }, env.id, { format: 'terraform', options: { includeChart: true } })
  t.equal(done.status, 'succeeded', JSON.stringify(done.error))
  const files = await unzip(Buffer.from(await (await fetch(`${url}/api/jobs/${done.id}/download`, { headers: auth('dev') })).arrayBuffer()))

  const tfvars = decorators(files.get('terraform/terraform.tfvars') ?? '')
  t.equal(tfvars.length, sourceDecorators.length, 'every decorator line is kept')
  t.same(
    tfvars.filter((l) => WITH_TAIL.test(l)),
    [],
    'none keeps its tail',
  )
  t.same(
    tfvars.map(core),
    sourceDecorators.map((l) => core(l).replace(/^(@(?:param|module) [\w.-]+).*$/, '$1')),
    'each is the decorator and its path, nothing more',
  )
  t.ok(tfvars.includes('# @param name'), '`# @param name` remains')
  t.ok(
    tfvars.some((l) => /^# # @param services\.\w+\.\w+$/.test(l)),
    'also in disabled sections',
  )
  let decorated = 0
  for (const [name, text] of files) {
    for (const line of decorators(text)) {
      decorated++
      t.notMatch(line, WITH_TAIL, `${name}: ${line.trim()}`)
    }
  }
  t.ok(decorated > sourceDecorators.length, 'the charts and modules were checked too')
})

t.test('without it the embedded processor copies the tails (the same tree, processed in memory)', async (t) => {
  const input = processorInput({
    _id: 'x',
    name: 'shop-prod',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-central-1',
    services: {},
  } as any)
  const kept = await inProcessProcessor(directorySource(BUNDLED_TEMPLATES_DIR), { trimDecoratorAttrs: false }).process(input, [
    'terraform/',
  ])
  const trimmed = await inProcessProcessor(directorySource(BUNDLED_TEMPLATES_DIR), { trimDecoratorAttrs: true }).process(input, [
    'terraform/',
  ])
  const text = (files: { path: string; content: string | Buffer }[]) =>
    String(files.find((f) => f.path === 'terraform/terraform.tfvars')?.content)
  t.ok(
    decorators(text(kept.files)).some((l) => WITH_TAIL.test(l)),
    'tails kept by default',
  )
  t.notOk(
    decorators(text(trimmed.files)).some((l) => WITH_TAIL.test(l)),
    'and stripped when asked',
  )
})
