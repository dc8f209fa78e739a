// `npm start`'s shape: the server with the embedded identity provider mounted on its own address.
// Real tokens from real flows (PKCE for users, client credentials for automation) reach /api.
import t from 'tap'
import { loadConfig } from '@ies/server/config'
import { startServer } from '@ies/server/main'
import { getClientCredentialsToken, getUserToken } from '../../harness/scripted-login.ts'
import { startTestDatabase } from '../../harness/database.ts'
import { freePort } from '../../../scripts/services/net.ts'

t.test('tokens from the embedded provider authenticate API calls', async (t) => {
  const db = await startTestDatabase(t)
  const port = await freePort()
  const config = loadConfig({ NODE_ENV: 'test', PORT: String(port), MONGODB_URI: db.uri, LOG_LEVEL: 'silent' })
  const app = await startServer(config, { logger: false })
  t.teardown(() => app.close())
  const address = { authUrl: config.publicUrl, realm: config.auth.realm }
  const api = (token: string, path: string) => fetch(`${config.publicUrl}/api${path}`, { headers: { authorization: `Bearer ${token}` } })

  const dev = await getUserToken({ ...address, clientId: config.auth.appClientId, username: 'dev', password: config.auth.devUserPassword })
  t.equal(dev.expires_in, 300)
  const me = await api(dev.access_token, '/users/me')
  t.equal(me.status, 200)
  t.match((await me.json()).data, { username: 'dev', identityProviderId: '5f0c8a7e-3b1d-4e2a-9c4f-1a2b3c4d5e01' })
  t.equal((await api(dev.access_token, '/users')).status, 403, 'dev is not an admin')

  const admin = await getUserToken({
    ...address,
    clientId: config.auth.appClientId,
    username: 'admin',
    password: config.auth.devAdminPassword,
  })
  t.equal((await api(admin.access_token, '/users')).status, 200, 'admin lists users')

  const cli = await getClientCredentialsToken({ ...address, clientId: config.auth.cliClientId, clientSecret: config.auth.cliClientSecret })
  const service = await api(cli.access_token, '/users/me')
  t.equal(service.status, 200)
  t.equal((await service.json()).data.username, `service-account-${config.auth.cliClientId}`)

  await t.rejects(
    getUserToken({ ...address, clientId: config.auth.appClientId, username: 'dev', password: 'wrong' }),
    'a wrong password gets no token',
  )
})
