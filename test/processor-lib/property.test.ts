// Property: for random configurations, every processed file keeps its line count, and every
// processed YAML file still parses (and holds the configured value).
import fc from 'fast-check'
import t from 'tap'
import YAML from 'yaml'
import { parse as parseHcl } from '@cdktf/hcl2json'
import { processFiles } from '@ies/processor-lib'

const yamlTemplate = [
  'app:',
  '  # @param name',
  '  name: template # comment',
  '  # @param services.x.count',
  '  replicas: 1',
  '  list:',
  '    # @param services.x.tags',
  '    - tags: []',
  '# @section services.x.enabled begin',
  'extra:',
  '  # @param region',
  '  region: "us-east-1"',
  '# @section services.x.enabled end',
  '# @param domain',
  'domain: x',
  '',
].join('\n')

const hclTemplate = [
  'locals {',
  '  # @param name',
  '  name = "template" # comment',
  '  # @param services.x.count',
  '  count = 1',
  '  # @param services.x.tags',
  '  tags = []',
  '  # @param domain',
  '  domain = "x"',
  '}',
  '',
].join('\n')

const scalar = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(''),
)
const config = fc.record({
  name: fc.string({ unit: 'grapheme' }),
  region: scalar,
  domain: scalar,
  services: fc.record({
    x: fc.record({
      enabled: fc.oneof(fc.boolean(), fc.constant(0), fc.constant(null), fc.constant('')),
      count: scalar,
      tags: fc.array(fc.oneof(fc.string(), fc.integer())),
    }),
  }),
})

t.test('line count kept and YAML parses', async (t) => {
  fc.assert(
    fc.property(config, (cfg) => {
      const r = processFiles(
        [
          { path: 'a.yaml', content: Buffer.from(yamlTemplate), mode: 0o644 },
          { path: 'crlf.yml', content: Buffer.from(yamlTemplate.replace(/\n/g, '\r\n')), mode: 0o644 },
          { path: 'a.tf', content: Buffer.from(hclTemplate), mode: 0o644 },
        ],
        cfg,
      )
      if (!r.ok) return true // a value that cannot be written on one line refuses the file (reported)
      for (const f of r.files) {
        const text = String(f.content)
        if (text.split('\n').length !== (f.path === 'a.tf' ? hclTemplate : yamlTemplate).split('\n').length) return false
        if (f.path.endsWith('.tf')) continue
        const doc = YAML.parse(text)
        if (doc.app.name !== cfg.name) return false
        if (JSON.stringify(doc.app.replicas) !== JSON.stringify(cfg.services.x.count)) return false
        if (JSON.stringify(doc.domain) !== JSON.stringify(cfg.domain)) return false
      }
      return true
    }),
    { numRuns: 300 },
  )
  t.pass('300 random configurations')
})

t.test('processed HCL still parses and holds the values', async (t) => {
  const samples = fc.sample(config, 40)
  for (const cfg of samples) {
    const r = processFiles([{ path: 'a.tf', content: Buffer.from(hclTemplate), mode: 0o644 }], cfg)
    t.ok(r.ok)
    const parsed = await parseHcl('a.tf', String(r.files[0].content))
    const locals = (parsed.locals as Record<string, unknown>[])[0]
    // HCL normalizes string literals to NFC; hcl2json keeps template escapes as written
    const want = cfg.name.normalize('NFC').replace(/\$\{/g, '$${').replace(/%\{/g, '%%{')
    t.equal(locals.name, want, 'name round-trips')
  }
})
