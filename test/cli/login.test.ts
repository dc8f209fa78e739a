// `ies login` from a terminal: the device flow against the embedded provider (the test opens the
// verification page, enters the code and signs in as a person would), the refresh token stored with
// mode 0600, later commands renewing their access token from it, and `ies logout` ending the session
// at the provider so that the stored refresh token no longer works.
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { approveDevice, DEVICE_CLIENT_ID, expectOAuthError, refreshToken, TEST_PASSWORDS } from '../harness/identity.ts'
import { iesRunner, parseJson, startCliServer, startLogin } from './helpers.ts'

t.test('device login, transparent renewal, logout revokes', async (t) => {
  const server = await startCliServer(t)
  const ies = iesRunner(server)

  const before = await ies.run(['whoami'])
  t.equal(before.code, 5, 'not logged in: 5')

  const nowhere = await ies.run(['login'], { IES_SERVER: 'http://127.0.0.1:9' })
  t.equal(nowhere.code, 1, 'no identity provider: 1')
  t.match(nowhere.stderr, /NETWORK_ERROR: The identity provider at http:\/\/127\.0\.0\.1:9 could not be reached/)

  const login = await startLogin(ies)
  const prompt = login.device
  t.ok(prompt.uri.startsWith(`${server.idp.authUrl}/realms/ies/`), 'the verification URI is the provider’s (announced by the server)')
  // The person: opens the page, enters the code, signs in and confirms.
  await approveDevice(
    { device_code: '', user_code: prompt.code, verification_uri: prompt.uri, expires_in: 600 },
    { username: 'dev', password: TEST_PASSWORDS.dev },
  )
  const code = await login.exited
  t.equal(code, 0, login.stderr())

  const file = path.join(ies.configDir, 'credentials.json')
  t.equal(statSync(file).mode & 0o777, 0o600, 'the credentials file is readable by its owner only')
  t.equal(statSync(ies.configDir).mode & 0o777, 0o700, 'in a directory of its own')
  const stored = JSON.parse(readFileSync(file, 'utf8')).logins[server.url]
  t.match(stored, { clientId: DEVICE_CLIENT_ID, realm: 'ies', authUrl: server.idp.authUrl, username: 'dev', refreshToken: String })
  t.notOk('accessToken' in stored, 'no access token on disk')

  const who = await ies.run(['whoami', '--json'])
  t.equal(who.code, 0, who.stderr)
  t.match(parseJson(who), { username: 'dev', email: String })
  const created = await ies.run([
    'env',
    'create',
    '--name',
    'dev-env',
    '--global-prefix',
    'devx',
    '--provider',
    'aws',
    '--region',
    'eu-west-1',
  ])
  t.equal(created.code, 0, created.stderr)

  const refresh = JSON.parse(readFileSync(file, 'utf8')).logins[server.url].refreshToken as string
  const out = await ies.run(['logout'])
  t.equal(out.code, 0, out.stderr)
  t.match(out.stdout, /Logged out/)
  t.throws(() => statSync(file), { code: 'ENOENT' }, 'the stored login is gone')
  await expectOAuthError(
    t,
    refreshToken({ authUrl: server.idp.authUrl, clientId: DEVICE_CLIENT_ID, refreshToken: refresh }),
    { status: 400, error: 'invalid_grant' },
    'the provider no longer honours the refresh token',
  )
  const after = await ies.run(['env', 'list'])
  t.equal(after.code, 5, 'after logout: 5')
  t.notOk(ies.printed.join('').includes(refresh), 'the refresh token was never printed')
})
