// Prints a fresh access token for a development user, obtained from the running service's identity
// provider through the real authorization code + PKCE flow (the same code as the tests use).
//
//   npm run token -- --user dev|admin [--url http://127.0.0.1:3000] [--json]
//
// --url is the identity provider's base ({auth_url}); default AUTH_URL, else PUBLIC_URL (the embedded
// provider of `npm start`). Passwords come from DEV_USER_PASSWORD / DEV_ADMIN_PASSWORD (see README).
// --json prints the whole token response instead of the access token alone.
import { parseArgs } from 'node:util'
import { authBaseUrl, loadConfig } from '../server/src/config.ts'
import { getUserToken, OAuthError } from '../test/harness/scripted-login.ts'

const { values } = parseArgs({
  options: {
    user: { type: 'string', default: 'dev' },
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
})

const config = loadConfig()
const passwords: Record<string, string> = { dev: config.auth.devUserPassword, admin: config.auth.devAdminPassword }
const username = values.user!
const password = passwords[username]
if (password === undefined) {
  console.error(`unknown development user "${username}" (use dev or admin)`)
  process.exit(2)
}

try {
  const tokens = await getUserToken({
    authUrl: (values.url ?? authBaseUrl(config)).replace(/\/+$/, ''),
    realm: config.auth.realm,
    clientId: config.auth.appClientId,
    username,
    password,
  })
  process.stdout.write(`${values.json ? JSON.stringify(tokens, null, 2) : tokens.access_token}\n`)
} catch (err) {
  const message = err instanceof OAuthError || err instanceof Error ? err.message : String(err)
  console.error(`could not get a token for ${username}: ${message}`)
  process.exit(1)
}
