// An assistant suggestion applied to the wizard's values by catalog path.
import t from 'tap'
import { applySuggestion } from '../../../../../desktop/src/renderer/lib/wizard/apply-suggestion.ts'
import { emptyValues } from '../../../../../desktop/src/renderer/lib/wizard/values.ts'

const base = () => ({ ...emptyValues({ provider: 'aws' }), name: 'shop', services: { eks: { enabled: false, nodeMinSize: 2 } } })

t.test('service fields and global fields', async (t) => {
  const v = base()
  const on = applySuggestion(v, 'services.eks.enabled', true, false)
  t.same('values' in on && on.values.services.eks, { enabled: true, nodeMinSize: 2 })
  t.same(v.services.eks.enabled, false, 'the values given are not changed')
  const added = applySuggestion(v, 'services.vpc.enabled', true, false)
  t.same('values' in added && added.values.services.vpc, { enabled: true })
  const region = applySuggestion(v, 'region', 'eu-central-1', false)
  t.equal('values' in region && region.values.region, 'eu-central-1')
})

t.test('refused: immutable fields when editing, unknown paths', async (t) => {
  t.match(applySuggestion(base(), 'name', 'other', true), { refused: /cannot change/ })
  t.ok('values' in applySuggestion(base(), 'name', 'other', false), 'a new environment can take a name')
  t.match(applySuggestion(base(), 'gitRepository.deployKey', 'x', false), { refused: /no field/ })
  t.match(applySuggestion(base(), 'services.eks', true, false), { refused: /no field/ })
})
