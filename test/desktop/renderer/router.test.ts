// The hash routes, and an unknown address as "not found" instead of silently the environment list.
import t from 'tap'
import { parseRoute } from '../../../desktop/src/renderer/router.ts'

t.test('routes', async (t) => {
  t.same(parseRoute(''), { name: 'environments' })
  t.same(parseRoute('#/environments'), { name: 'environments' })
  t.same(parseRoute('#/environments/new'), { name: 'new-environment' })
  t.same(parseRoute('#/environments/abc'), { name: 'environment', id: 'abc' })
  t.same(parseRoute('#/environments/abc/edit'), { name: 'edit-environment', id: 'abc' })
  t.same(parseRoute('#/credentials'), { name: 'credentials' })
  t.same(parseRoute('#/nowhere/at/all'), { name: 'not-found', path: '/nowhere/at/all' })
  t.same(parseRoute('#/settings'), { name: 'not-found', path: '/settings' })
  t.same(parseRoute('#/users'), { name: 'users' })
})

t.test('the admin rule: the realm role admin or the app role environment-admin', async (t) => {
  const { isAdmin } = await import('../../../desktop/src/renderer/lib/session/roles.ts')
  t.ok(isAdmin({ realm_access: { roles: ['user', 'admin'] } }, 'ies-app'))
  t.ok(isAdmin({ resource_access: { 'ies-app': { roles: ['environment-admin'] } } }, 'ies-app'))
  t.notOk(isAdmin({ resource_access: { other: { roles: ['environment-admin'] } } }, 'ies-app'), "another client's role")
  t.notOk(isAdmin({ realm_access: { roles: ['user'] } }, 'ies-app'))
  t.notOk(isAdmin({}, 'ies-app'))
})
