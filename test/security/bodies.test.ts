// Hostile bodies on the API: oversize, deeply nested, not UTF-8, unicode names, wrong content types,
// and routing errors (an over-long id, a URL that does not decode). Each is a clear 4xx in the error
// envelope, fast, and nothing is stored.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../harness/jobs.ts'

const LIMIT = 64 * 1024

t.test('hostile bodies', async (t) => {
  const { app, url, auth } = await startTestApp(t, { BODY_LIMIT_BYTES: String(LIMIT) })
  const db = app.mongo.db
  const counts = async () => ({
    environments: await db.collection('environments').countDocuments(),
    credentials: await db
      .collection('cloudCredentials')
      .countDocuments()
      .catch(() => 0),
  })
  const created = await fetch(`${url}/api/environments`, {
    method: 'POST',
    headers: { ...auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify(environmentBody({ name: 'target' })),
  })
  t.equal(created.status, 201, 'a valid body is stored (the refusals below are not a broken route)')
  const target = ((await created.json()) as any).data
  const stored = JSON.stringify(
    ((await (await fetch(`${url}/api/environments/${target.id}`, { headers: auth('dev') })).json()) as any).data,
  )

  const refuse = async (
    name: string,
    method: string,
    path: string,
    body: string | Buffer,
    contentType: string | undefined,
    status: number,
    code: string,
    field?: string,
  ) => {
    const before = await counts()
    const started = Date.now()
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...auth('dev'), ...(contentType && { 'content-type': contentType }) },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    })
    const text = await res.text()
    t.equal(res.status, status, `${name}: ${status} (${text.slice(0, 200)})`)
    const parsed = (() => {
      try {
        return JSON.parse(text)
      } catch {
        return undefined
      }
    })()
    t.equal(parsed?.error?.code, code, `${name}: ${code} in the error envelope`)
    if (field)
      t.ok(
        parsed?.error?.details?.some((d: { field: string }) => d.field === field),
        `${name}: details name ${field}`,
      )
    t.ok(parsed?.meta?.requestId, `${name}: with meta`)
    t.ok(Date.now() - started < 5000, `${name}: answered in ${Date.now() - started} ms`)
    t.same(await counts(), before, `${name}: nothing stored`)
  }
  const json = 'application/json'
  const refuseText = async (target: string, body: string) =>
    ((await (await fetch(target, { method: 'POST', headers: { ...auth('dev'), 'content-type': json }, body })).json()) as any).error
      .message as string
  const env = (overrides: Record<string, unknown>) => JSON.stringify(environmentBody(overrides))
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

  await refuse(
    'oversize body',
    'POST',
    '/api/environments',
    env({ name: 'big-one', helmCharts: { x: { enabled: true, values: 'a'.repeat(LIMIT) } } }),
    json,
    413,
    'PAYLOAD_TOO_LARGE',
  )
  await refuse(
    'oversize credential',
    'POST',
    '/api/cloud-credentials',
    JSON.stringify({
      name: 'big',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAAAAAAAAAAAAAAAAA', secretAccessKey: 's'.repeat(LIMIT) },
    }),
    json,
    413,
    'PAYLOAD_TOO_LARGE',
  )
  for (const depth of [1_000, 10_000]) {
    await refuse(
      `services nested ${depth} deep`,
      'POST',
      '/api/environments',
      env({ name: `deep-${depth}`, services: { vpc: { enabled: true, x: '@' } } }).replace('"@"', deep(depth)),
      json,
      400,
      'VALIDATION_ERROR',
    )
    await refuse(
      `merge patch nested ${depth} deep`,
      'PUT',
      `/api/environments/${target.id}`,
      `{"services":{"vpc":${deep(depth).replace('{"a":', '{"enabled":true,"a":')}}}`,
      json,
      400,
      'VALIDATION_ERROR',
    )
    // The assistant's draft values are free-form and never stored: answered or refused, never a crash.
    const chat = await fetch(`${url}/api/ai/chat`, {
      method: 'POST',
      headers: { ...auth('dev'), 'content-type': json },
      body: `{"messages":[{"role":"user","content":"what is missing?"}],"draft":{"name":${deep(depth)},"services":{"eks":{"x":${deep(depth)}}}}}`,
    })
    t.ok([200, 400, 413].includes(chat.status), `assistant draft nested ${depth} deep: ${chat.status}`)
  }
  const latin1 = Buffer.concat([
    Buffer.from('{"name":"caf'),
    Buffer.from([0xe9]),
    Buffer.from('-prod","globalPrefix":"acme","provider":"aws","region":"eu-central-1"}'),
  ])
  await refuse('Latin-1 bytes in a name', 'POST', '/api/environments', latin1, json, 400, 'VALIDATION_ERROR')
  const badUtf8Credential = Buffer.concat([
    Buffer.from('{"name":"cred-'),
    Buffer.from([0xc3, 0x28, 0xff]),
    Buffer.from('","provider":"aws","credentials":{"accessKeyId":"AKIAAAAAAAAAAAAAAAAA","secretAccessKey":"s"}}'),
  ])
  await refuse('invalid UTF-8 in a free-text name', 'POST', '/api/cloud-credentials', badUtf8Credential, json, 400, 'VALIDATION_ERROR')
  const utf16 = Buffer.from(env({ name: 'utf-sixteen' }), 'utf16le')
  await refuse('UTF-16 body', 'POST', '/api/environments', utf16, json, 400, 'VALIDATION_ERROR')
  for (const name of ['prod-é', 'ｐｒｏｄ', 'prod\u200b', 'prod\u202e', 'pr\u0307od', '𝐩𝐫𝐨𝐝', 'prod\u0000x']) {
    await refuse(
      `unicode environment name ${JSON.stringify(name)}`,
      'POST',
      '/api/environments',
      env({ name }),
      json,
      400,
      'VALIDATION_ERROR',
    )
  }
  for (const [type, body] of [
    ['text/plain', env({ name: 'as-text' })],
    ['application/x-www-form-urlencoded', 'name=as-form&globalPrefix=acme&provider=aws&region=eu-central-1'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nas-multipart\r\n--x--\r\n'],
    ['application/xml', '<environment><name>as-xml</name></environment>'],
    [undefined, env({ name: 'no-type' })],
  ] as [string | undefined, string][]) {
    await refuse(`content type ${type ?? '(none)'}`, 'POST', '/api/environments', body, type, 400, 'VALIDATION_ERROR', '(content-type)')
  }
  await refuse(
    'JSON declared as UTF-16',
    'POST',
    '/api/environments',
    env({ name: 'as-utf16' }),
    'application/json; charset=utf-16',
    400,
    'VALIDATION_ERROR',
    '(content-type)',
  )
  await refuse('malformed JSON', 'POST', '/api/environments', '{"name": "half', json, 400, 'VALIDATION_ERROR')
  await refuse('JSON that is not an object', 'POST', '/api/environments', '["name","x"]', json, 400, 'VALIDATION_ERROR')
  await refuse(
    '__proto__ in a patch',
    'PUT',
    `/api/environments/${target.id}`,
    '{"__proto__":{"polluted":true},"services":{"vpc":{"enabled":true,"constructor":{"prototype":{"polluted":true}}}}}',
    json,
    400,
    'VALIDATION_ERROR',
    '(body)',
  )
  const forbidden = await fetch(`${url}/api/environments`, {
    method: 'POST',
    headers: { ...auth('dev'), 'content-type': json },
    body: '{"name":"proto","services":{"__proto__":{"enabled":true}}}',
  })
  t.equal(
    ((await forbidden.json()) as any).error.message,
    'Request body contains a forbidden key',
    'a forbidden key is named as such, not as invalid JSON',
  )
  t.equal(
    await refuseText(`${url}/api/environments`, '{"name": "half'),
    'Request body is not valid JSON',
    'malformed JSON is still called malformed',
  )
  t.equal(({} as any).polluted, undefined, 'no prototype pollution')

  // Unicode that is valid where free text is allowed round-trips exactly.
  const unicodeName = 'Prod — 東京 🚀 ñ'
  const cred = await fetch(`${url}/api/cloud-credentials`, {
    method: 'POST',
    headers: { ...auth('dev'), 'content-type': json },
    body: JSON.stringify({
      name: unicodeName,
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAAAAAAAAAAAAAAAAA', secretAccessKey: 's' },
    }),
  })
  if (cred.status === 201) {
    const id = ((await cred.json()) as any).data.id
    t.equal(
      ((await (await fetch(`${url}/api/cloud-credentials/${id}`, { headers: auth('dev') })).json()) as any).data.name,
      unicodeName,
      'a unicode credential name round-trips',
    )
  } else {
    t.equal(cred.status, 400, 'or a unicode credential name is refused with 400')
  }

  // Routing errors before any hook: in the envelope too.
  for (const [name, path, status, code] of [
    ['an id longer than any id', `/api/environments/${'a'.repeat(500)}`, 404, 'NOT_FOUND'],
    ['an id that does not decode', '/api/environments/%E0%A4%A', 400, 'VALIDATION_ERROR'],
  ] as const) {
    const res = await fetch(`${url}${path}`, { headers: auth('dev') })
    t.equal(res.status, status, `${name}: ${status}`)
    t.equal(((await res.json()) as any).error?.code, code, `${name}: ${code}`)
  }
  t.equal(
    JSON.stringify(((await (await fetch(`${url}/api/environments/${target.id}`, { headers: auth('dev') })).json()) as any).data),
    stored,
    'the target environment is unchanged',
  )
})
