// The typed API client against a real server: the envelope unwrapped, ApiError with the API's code
// and fields, and one retry with a renewed token when the server refuses the one it was given (then
// `onUnauthorized`).
import t from 'tap'
import { ApiError, createApiClient } from '@ies/api'
import { getClientCredentialsToken } from '../harness/identity.ts'
import { startCliServer } from '../cli/helpers.ts'

t.test('typed client', async (t) => {
  const server = await startCliServer(t)
  const good = (await getClientCredentialsToken({ authUrl: server.idp.authUrl })).access_token
  let token = 'not-a-token'
  let renewals = 0
  const client = createApiClient({
    baseUrl: `${server.url}/api`,
    auth: {
      getToken: async () => token,
      renew: async () => {
        renewals++
        token = good
        return true
      },
    },
  })

  const me = await client.me()
  t.equal(renewals, 1, 'the refused token was renewed once')
  t.type(me.username, 'string')

  const created = await client.createEnvironment({ name: 'typed-env', globalPrefix: 'typed', provider: 'aws', region: 'eu-west-1' })
  t.equal(created.status, 'pending')
  const page = await client.listEnvironments({ limit: 1 })
  t.same(page.pagination, { page: 1, limit: 1, total: 1, totalPages: 1 })

  const err = await client
    .createEnvironment({ name: 'typed-env', globalPrefix: 'typed', provider: 'aws', region: 'eu-west-1' })
    .catch((e) => e)
  t.type(err, ApiError)
  t.match(err, { status: 409, code: 'CONFLICT', requestId: String })
  const invalid = await client.updateEnvironment(created.id, { region: 'Not A Region' }).catch((e) => e)
  t.match(invalid, { status: 400, code: 'VALIDATION_ERROR' })
  t.ok(
    invalid.fieldDetails.some((d: { field: string }) => d.field === 'region'),
    'the field is named',
  )

  let ended = 0
  const refusing = createApiClient({
    baseUrl: `${server.url}/api`,
    auth: { getToken: async () => 'nope', renew: async () => false },
    onUnauthorized: () => ended++,
  })
  t.match(await refusing.me().catch((e) => e), { status: 401, code: 'UNAUTHORIZED' }, 'no retry when renewal fails')
  t.equal(ended, 1, 'the caller learns that the sign-in has ended')
  const unreachable = createApiClient({ baseUrl: 'http://127.0.0.1:9/api', auth: { getToken: async () => good } })
  t.match(await unreachable.me().catch((e) => e), { status: 0, code: 'NETWORK_ERROR' })
})
