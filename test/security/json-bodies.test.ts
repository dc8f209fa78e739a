// Request bodies: a JSON body with a duplicate key is ambiguous between
// parsers (the first value to one, the last to another) and is refused with a 400 naming the key;
// a one-item array where the schema wants a scalar is a 400, never silently unwrapped; a body of
// more members than any real request has is refused before it is parsed. Nothing is stored.
import t from 'tap'
import { jsonShape } from '@ies/server/core/json-body'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../harness/jobs.ts'

t.test('jsonShape finds the first duplicate key by its path, escapes decoded', async (t) => {
  t.equal(jsonShape('{"name":"a","name":"b"}').duplicateKey, 'name')
  t.equal(jsonShape('{"services":{"eks":{"enabled":true,"enabled":false}}}').duplicateKey, 'services.eks.enabled')
  t.equal(jsonShape('{"a":[{"x":1},{"y":1,"y":2}]}').duplicateKey, 'a.1.y')
  t.equal(jsonShape('{"name":"a","n\\u0061me":"b"}').duplicateKey, 'name', 'an escaped spelling is the same key')
  t.equal(jsonShape('{"a":{"k":1},"b":{"k":1}}').duplicateKey, undefined, 'the same key in two objects is fine')
  t.equal(jsonShape('{"a":"{\\"k\\":1,\\"k\\":2}"}').duplicateKey, undefined, 'keys inside strings are text')
  t.equal(jsonShape('["a","a"]').duplicateKey, undefined, 'repeated array items are fine')
  t.equal(jsonShape('{"k":1}', 64, 2).tooManyMembers, undefined, 'an object and its key are two members')
  t.equal(jsonShape('{"a":1,"b":2}', 64, 2).tooManyMembers, true, 'three members are over a cap of two')
})

t.test('ambiguous and mistyped bodies are refused by the API', async (t) => {
  const { app, url, auth } = await startTestApp(t)
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  const count = () => app.mongo.db.collection('environments').countDocuments()
  const send = async (method: string, path: string, body: string) => {
    const res = await fetch(`${url}${path}`, { method, headers, body })
    return { status: res.status, body: (await res.json()) as any }
  }
  const created = await send('POST', '/api/environments', JSON.stringify(environmentBody({ name: 'json-target' })))
  t.equal(created.status, 201, 'a valid body is stored')
  const id = created.body.data.id
  const before = await count()

  const valid = JSON.stringify(environmentBody({ name: 'json-dup' }))
  const cases: Array<[string, string, string, string, string]> = [
    [
      'duplicate top-level key',
      'POST',
      '/api/environments',
      valid.replace('"name":"json-dup"', '"name":"json-dup","name":"json-dup2"'),
      'name',
    ],
    [
      'duplicate nested key',
      'POST',
      '/api/environments',
      valid.replace('"eks":{"enabled":true}', '"eks":{"enabled":true,"enabled":false}'),
      'services.eks.enabled',
    ],
    [
      'duplicate key, escaped',
      'POST',
      '/api/environments',
      valid.replace('"name":"json-dup"', '"name":"json-dup","n\\u0061me":"x"'),
      'name',
    ],
    ['duplicate key in a merge patch', 'PUT', `/api/environments/${id}`, '{"region":"eu-west-1","region":"us-east-1"}', 'region'],
    [
      'one-item array for a string',
      'POST',
      '/api/environments',
      JSON.stringify(environmentBody({ name: 'json-arr', region: ['eu-west-1'] })),
      'region',
    ],
    [
      'one-item array for a boolean',
      'POST',
      '/api/environments',
      JSON.stringify(environmentBody({ name: 'json-arr2', services: { eks: { enabled: [true] } } })),
      'services.eks.enabled',
    ],
    ['one-item array in a patch', 'PUT', `/api/environments/${id}`, '{"region":["eu-west-1"]}', 'region'],
    ['one-item array for an enum', 'PUT', '/api/users/me', '{"preferences":{"theme":["dark"]}}', 'preferences.theme'],
  ]
  for (const [name, method, path, body, field] of cases) {
    const res = await send(method, path, body)
    t.equal(res.status, 400, `${name}: 400`)
    t.equal(res.body.error?.code, 'VALIDATION_ERROR', `${name}: VALIDATION_ERROR`)
    t.ok(
      res.body.error?.details?.some((d: { field: string }) => d.field === field),
      `${name}: details name ${field} (${JSON.stringify(res.body.error?.details)})`,
    )
  }
  t.equal(await count(), before, 'nothing was stored')
  const env = (await (await fetch(`${url}/api/environments/${id}`, { headers: auth('dev') })).json()) as any
  t.equal(env.data.region, 'eu-central-1', 'the stored environment is unchanged')

  const query = await fetch(`${url}/api/environments?page=1&page=2`, { headers: auth('dev') })
  t.equal(query.status, 400, 'a repeated query parameter is not unwrapped either')
})
