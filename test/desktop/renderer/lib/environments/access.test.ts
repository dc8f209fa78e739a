// What the page offers by the caller's role on the environment: the API's own rule.
import t from 'tap'
import { mayDo } from '../../../../../desktop/src/renderer/lib/environments/access.ts'

t.test('viewers read, operators also operate, editors and owners also change', async (t) => {
  t.same(
    (['viewer', 'operator', 'editor', 'owner', undefined] as const).map((role) => [
      mayDo(role, 'read'),
      mayDo(role, 'operate'),
      mayDo(role, 'change'),
    ]),
    [
      [true, false, false],
      [true, true, false],
      [true, true, true],
      [true, true, true],
      [true, true, true], // no role: the caller's own environment
    ],
  )
})
