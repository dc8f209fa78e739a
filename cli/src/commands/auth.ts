// ies login | logout | whoami
import type { Command } from 'commander'
import { jwtClaims, logout, OAuthError, pollDeviceToken, requestDeviceCode, type TokenResponse } from '@ies/api/oauth'
import { clientCredentialsFromEnv } from '../auth/session.ts'
import { readCredentials, removeCredentials, saveCredentials } from '../auth/store.ts'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { readConfigFile, writeConfigFile, type Settings } from '../settings.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The device flow (RFC 8628): show the code, poll at the provider's pace until the person has approved. */
async function deviceLogin(ctx: Context, settings: Settings): Promise<TokenResponse> {
  const address = { authUrl: settings.authUrl, realm: settings.realm }
  const device = await requestDeviceCode({ ...address, clientId: settings.deviceClientId }).catch((err: unknown) => {
    if (err instanceof OAuthError)
      throw new CommandFailed(`The identity provider refused the device login: ${err.message}`, EXIT.UNAUTHORIZED, 'LOGIN_FAILED')
    throw new CommandFailed(
      `The identity provider at ${settings.authUrl} could not be reached (${(err as Error).message})`,
      EXIT.FAILURE,
      'NETWORK_ERROR',
    )
  })
  const { out } = ctx
  const where = device.verification_uri_complete ?? device.verification_uri
  out.note(`To sign in, open ${out.colors.bold(device.verification_uri)}`)
  out.note(`and enter the code ${out.colors.bold(device.user_code)}`)
  if (device.verification_uri_complete) out.note(`(or open ${where})`)
  out.note('Waiting for the sign-in to be approved…')
  let interval = (device.interval ?? 5) * 1000
  const deadline = Date.now() + device.expires_in * 1000
  while (Date.now() < deadline) {
    await sleep(interval)
    try {
      return await pollDeviceToken({ ...address, clientId: settings.deviceClientId, deviceCode: device.device_code })
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err
      if (err.error === 'authorization_pending') continue
      if (err.error === 'slow_down') {
        interval += 5000
        continue
      }
      if (err.error === 'access_denied') throw new CommandFailed('The sign-in was denied', EXIT.UNAUTHORIZED, 'ACCESS_DENIED')
      if (err.error === 'expired_token') break
      throw new CommandFailed(`The identity provider refused the login: ${err.message}`, EXIT.UNAUTHORIZED, 'LOGIN_FAILED')
    }
  }
  throw new CommandFailed('The code expired before the sign-in was approved; run `ies login` again', EXIT.UNAUTHORIZED, 'EXPIRED')
}

/** Flags given to `ies login` become the defaults of later commands (config.json). */
function rememberServer(ctx: Context, settings: Settings): void {
  const { server, authUrl, realm } = ctx.flags
  if (server === undefined && authUrl === undefined && realm === undefined) return
  const file = readConfigFile(settings.configDir)
  writeConfigFile(settings.configDir, {
    ...file,
    ...(server !== undefined && { server: settings.server }),
    ...(authUrl !== undefined && { authUrl: settings.authUrl }),
    ...(realm !== undefined && { realm: settings.realm }),
  })
}

export function registerAuth(program: Command, ctx: () => Context): void {
  withExamples(
    program.command('login').description('Sign in with the device flow (the refresh token is stored in the config directory, mode 0600)'),
    ['ies login', '# another server (remembered for later commands)', 'ies --server https://ies.example.com login'],
  ).action(async () => {
    const c = ctx()
    const settings = await c.settings()
    if (clientCredentialsFromEnv(c.env)) {
      const session = await c.session()
      await session.renew()
      const me = await (await c.client()).me()
      c.out.result({ server: settings.server, username: me.username, source: 'client-credentials' }, () =>
        c.out.line(`Using ${session.describe()} as ${me.username}; nothing is stored.`),
      )
      return
    }
    const tokens = await deviceLogin(c, settings)
    if (!tokens.refresh_token) throw new CommandFailed('The identity provider gave no refresh token', EXIT.FAILURE, 'NO_REFRESH_TOKEN')
    const username = String(jwtClaims(tokens.access_token).preferred_username ?? '')
    saveCredentials(settings.configDir, settings.server, {
      authUrl: settings.authUrl,
      realm: settings.realm,
      clientId: settings.deviceClientId,
      refreshToken: tokens.refresh_token,
      ...(username && { username }),
    })
    rememberServer(c, settings)
    c.out.result({ server: settings.server, username, source: 'device' }, () =>
      c.out.line(`Logged in to ${settings.server}${username ? ` as ${username}` : ''}.`),
    )
  })

  withExamples(program.command('logout').description('End the stored login at the identity provider and forget it'), ['ies logout']).action(
    async () => {
      const c = ctx()
      const settings = await c.settings()
      const login = readCredentials(settings.configDir, settings.server)
      if (!login) {
        c.out.result({ server: settings.server, loggedOut: false }, () => c.out.line(`Not logged in to ${settings.server}.`))
        return
      }
      let revoked = true
      try {
        await logout({ authUrl: login.authUrl, realm: login.realm, clientId: login.clientId, refreshToken: login.refreshToken })
      } catch (err) {
        // The session may be gone already; the login is forgotten either way.
        revoked = false
        c.out.note(`The identity provider did not end the session (${(err as Error).message}); the stored login is removed.`)
      }
      removeCredentials(settings.configDir, settings.server)
      c.out.result({ server: settings.server, loggedOut: true, revoked }, () => c.out.line(`Logged out of ${settings.server}.`))
    },
  )

  withExamples(program.command('whoami').description('Show who the API sees'), [
    'ies whoami',
    '# in a pipeline: client credentials from the environment',
    'IES_CLIENT_ID=ies-cli IES_CLIENT_SECRET=... ies whoami --json',
  ]).action(async () => {
    const c = ctx()
    const settings = await c.settings()
    const me = await (await c.client()).me()
    c.out.result(me, () => c.out.line(`${me.username}${me.email ? ` <${me.email}>` : ''} on ${settings.server}`))
  })
}
