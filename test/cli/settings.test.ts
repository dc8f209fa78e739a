// Where `ies` finds its server, identity provider and realm: flags, then IES_* variables, then the
// config file, then what the server announces in /env.js; and colour only on a terminal.
import { PassThrough } from 'node:stream'
import t from 'tap'
import { Output } from '../../cli/src/output.ts'
import { resolveSettings, UsageError, writeConfigFile } from '../../cli/src/settings.ts'
import { startCliServer, tempDir } from './helpers.ts'

t.test('flags, then environment, then config file, then the server’s announcement', async (t) => {
  const server = await startCliServer(t)
  const dir = tempDir(t, 'ies-cli-settings-')
  const env = { IES_CONFIG_DIR: dir }

  const announced = await resolveSettings({}, { ...env, IES_SERVER: server.url })
  t.match(announced, { server: server.url, apiUrl: `${server.url}/api`, authUrl: server.idp.authUrl, realm: 'ies', configDir: dir })

  writeConfigFile(dir, { server: server.url, authUrl: 'http://file.example', realm: 'file-realm' })
  t.match(await resolveSettings({}, env), { server: server.url, authUrl: 'http://file.example', realm: 'file-realm' }, 'the config file')
  t.match(
    await resolveSettings({}, { ...env, IES_AUTH_URL: 'http://env.example/', IES_REALM: 'env-realm' }),
    { authUrl: 'http://env.example', realm: 'env-realm' },
    'environment over the file',
  )
  t.match(
    await resolveSettings(
      { authUrl: 'http://flag.example', realm: 'flag-realm' },
      { ...env, IES_AUTH_URL: 'http://env.example', IES_REALM: 'env-realm' },
    ),
    { authUrl: 'http://flag.example', realm: 'flag-realm' },
    'flags over everything',
  )
  await t.rejects(resolveSettings({ server: 'ftp://x' }, env), UsageError, 'a server that is not http(s) is a usage error')
  const unreachable = await resolveSettings({ server: 'http://127.0.0.1:9' }, { IES_CONFIG_DIR: tempDir(t, 'ies-cli-empty-') })
  t.match(unreachable, { authUrl: 'http://127.0.0.1:9', realm: 'ies' }, 'no announcement: the embedded provider at the server')
})

t.test('colour only on a terminal, and never with NO_COLOR', async (t) => {
  const render = (isTTY: boolean, env: Record<string, string>) => {
    const stdout = Object.assign(new PassThrough(), { isTTY })
    let text = ''
    stdout.on('data', (c: Buffer) => (text += c.toString()))
    const out = new Output(false, { stdout, stderr: new PassThrough() }, env)
    out.table(['NAME'], [['shop']])
    return text
  }
  t.ok(render(true, {}).includes('\u001b['), 'a terminal gets colour')
  t.notOk(render(false, {}).includes('\u001b['), 'a pipe gets none')
  t.notOk(render(true, { NO_COLOR: '1' }).includes('\u001b['), 'NO_COLOR is honoured')
  t.equal(render(false, {}), 'NAME\nshop\n', 'a plain table')
})
