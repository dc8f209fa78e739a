// Reading and writing a value at a catalog path (processor-lib/src/contract/paths.ts), the one helper
// of the wizard (assistant suggestions, stranded values) and the assistant (proposals over a draft).
import t from 'tap'
import { catalogPathParts, valueAtPath, withValueAt } from '../../processor-lib/src/contract/paths.ts'
import { overlayValues } from '../../plugins/ai/draft.ts'
import { applySuggestion } from '../../desktop/src/renderer/lib/wizard/apply-suggestion.ts'
import { emptyValues } from '../../desktop/src/renderer/lib/wizard/values.ts'

const doc: { region: string; services: Record<string, Record<string, unknown>> } = {
  region: 'eu-west-1',
  services: { eks: { enabled: true, nodeMinSize: 2 }, rds: { enabled: false } },
}

t.test('the parts of a catalog path: a global field or services.<key>.<field>, nothing else', async (t) => {
  t.same(catalogPathParts('region'), { key: 'region' })
  t.same(catalogPathParts('services.eks.nodeMinSize'), { service: 'eks', key: 'nodeMinSize' })
  for (const path of ['', 'services.eks', 'services..x', 'gitRepository.url', 'a.b.c', 'services.eks.x.y']) {
    t.equal(catalogPathParts(path), null, path)
  }
})

t.test('reads own values only', async (t) => {
  t.equal(valueAtPath(doc, 'region'), 'eu-west-1')
  t.equal(valueAtPath(doc, 'services.eks.nodeMinSize'), 2)
  t.equal(valueAtPath(doc, 'services.vpc.cidr'), undefined)
  t.equal(valueAtPath(doc, 'toString'), undefined, 'not the prototype')
  t.equal(valueAtPath(doc, 'services.eks.constructor'), undefined)
  t.equal(valueAtPath(null, 'region'), undefined)
})

t.test('writes a copy of what changes and leaves the original as it was', async (t) => {
  const before = structuredClone(doc)
  const next = withValueAt(doc, 'services.eks.nodeMinSize', 3)
  t.same(doc, before, 'the original is unchanged')
  t.equal(next.services.eks.nodeMinSize, 3)
  t.equal(next.services.rds, doc.services.rds, 'an untouched service is shared, not copied')
  t.same(withValueAt(doc, 'services.vpc.enabled', true).services.vpc, { enabled: true }, 'a service not there yet')
  t.equal(withValueAt(doc, 'region', 'us-east-1').region, 'us-east-1')
  t.equal(withValueAt(doc, 'gitRepository.url', 'x'), doc, 'not a catalog path: the same document')
  const polluted = withValueAt(doc, '__proto__', { hacked: true })
  t.equal(({} as Record<string, unknown>).hacked, undefined, 'no prototype is reached')
  t.equal(Object.getPrototypeOf(polluted), Object.prototype)
})

t.test('the assistant and the wizard set values alike', async (t) => {
  const values = emptyValues({ provider: 'aws', globalPrefix: 'acme', region: 'eu-west-1' })
  const applied = applySuggestion(values, 'services.eks.nodeMinSize', 3, false)
  const overlaid = overlayValues({ services: {} }, [{ path: 'services.eks.nodeMinSize', value: 3 }])
  t.ok('values' in applied)
  if ('values' in applied) t.same(applied.values.services.eks, overlaid.services!.eks)
  t.same(overlayValues(undefined, [{ path: 'region', value: 'us-east-1' }]), { region: 'us-east-1', services: {} })
})
