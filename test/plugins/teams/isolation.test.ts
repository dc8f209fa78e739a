// Teams end to end on a real server and database: who sees and may do what to a team's environment
// on every environment route (a non-member 404, a viewer 403 on every write, an operator generates
// and pushes but does not change, an editor does all), a removed member refused at once, roles from
// a groups claim taking effect with the next token, moves between owners, and the admin's team API.
import t from 'tap'
import { startTestApp, type TestApp } from '../../harness/app.ts'

const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }

function person(username: string, extra: Record<string, unknown> = {}) {
  return {
    sub: `00000000-0000-4000-8000-${Buffer.from(username).toString('hex').padStart(12, '0').slice(0, 12)}`,
    preferred_username: username,
    email: `${username}@example.com`,
    realm_access: { roles: ['user'] },
    ...extra,
  }
}

function client(ctx: TestApp) {
  const tokens = {
    admin: () => ctx.tokenFor('admin'),
    dev: () => ctx.tokenFor('dev'),
    other: () => ctx.tokenFor('other'),
    carol: () => ctx.issuer.sign(person('carol')),
    eve: () => ctx.issuer.sign(person('eve')),
    pipeline: () =>
      ctx.issuer.sign({
        sub: '00000000-0000-4000-8000-00000000c11e',
        azp: 'ies-cli',
        preferred_username: 'service-account-ies-cli',
        realm_access: { roles: ['user'] },
      }),
  }
  type Who = keyof typeof tokens | { token: string }
  return async (who: Who, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const token = typeof who === 'string' ? tokens[who]() : who.token
    const res = await ctx.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload !== undefined && { payload: payload as object }),
    })
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined }
  }
}

t.test('teams and roles', async (t) => {
  const ctx = await startTestApp(t, { TEAMS_GROUPS_CLAIM: 'groups' })
  const call = client(ctx)

  // The admin's team API.
  t.equal((await call('dev', 'POST', '/api/teams', { name: 'platform' })).status, 403, 'only an admin creates teams')
  const created = await call('admin', 'POST', '/api/teams', { name: 'platform' })
  t.equal(created.status, 201)
  const teamId = created.body.data.id
  t.equal((await call('admin', 'POST', '/api/teams', { name: 'platform' })).status, 409, 'names are unique')
  const bad = await call('admin', 'POST', '/api/teams', { name: 'Not A Name' })
  t.equal(bad.status, 400)
  t.equal(bad.body.error.details[0].field, 'name')
  for (const [kind, name, role] of [
    ['user', 'dev', 'editor'],
    ['user', 'other', 'viewer'],
    ['user', 'carol', 'operator'],
    ['client', 'ies-cli', 'operator'],
  ]) {
    t.equal((await call('admin', 'PUT', `/api/teams/platform/members/${kind}/${name}`, { role })).status, 200, `${name} is ${role}`)
  }
  t.equal((await call('admin', 'PUT', '/api/teams/platform/members/user/x', { role: 'owner' })).status, 400, 'an unknown role is refused')
  t.equal((await call('dev', 'PUT', '/api/teams/platform/members/user/eve', { role: 'editor' })).status, 403, 'members are set by an admin')
  const members = await call('other', 'GET', '/api/teams/platform/members')
  t.equal(members.status, 200, 'a member sees the members')
  t.same(
    members.body.data.map((m: { name: string }) => m.name),
    ['ies-cli', 'carol', 'dev', 'other'],
  )
  t.equal((await call('eve', 'GET', '/api/teams/platform/members')).status, 404, 'a non-member does not see the team')
  t.same(
    (await call('other', 'GET', '/api/teams')).body.data.map((x: { name: string; role: string }) => [x.name, x.role]),
    [['platform', 'viewer']],
  )
  t.same((await call('eve', 'GET', '/api/teams')).body.data, [])

  // An editor creates a team environment; a viewer may not; a non-member is told the team is not theirs.
  const env = await call('dev', 'POST', '/api/environments', { ...base, name: 'shop-prod', team: 'platform' })
  t.equal(env.status, 201)
  t.equal(env.body.data.team, 'platform')
  t.equal(env.body.data.role, 'editor')
  const id = env.body.data.id
  t.equal(
    (await call('other', 'POST', '/api/environments', { ...base, name: 'viewer-made', team: 'platform' })).status,
    403,
    'a viewer creates none',
  )
  const notMine = await call('eve', 'POST', '/api/environments', { ...base, name: 'eve-made', team: 'platform' })
  t.equal(notMine.status, 400)
  t.equal(notMine.body.error.details[0].field, 'team')
  // The creator's own environment of the same name is another one: names are unique per owner.
  t.equal((await call('dev', 'POST', '/api/environments', { ...base, name: 'shop-prod' })).status, 201)

  const routes: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?]> = [
    ['read', 'GET', `/api/environments/${id}`],
    ['read', 'GET', `/api/environments/${id}/jobs`],
    ['operate', 'POST', `/api/environments/${id}/generate`, { format: 'terraform' }],
    ['operate', 'POST', `/api/environments/${id}/push`, {}],
    ['change', 'PUT', `/api/environments/${id}`, { region: 'eu-west-2' }],
    ['change', 'DELETE', `/api/environments/${id}`],
  ]

  t.test('a non-member gets 404 on every environment route', async (t) => {
    for (const [, method, url, body] of routes) {
      const res = await call('eve', method, url, body)
      t.equal(res.status, 404, `${method} ${url}`)
      t.equal(res.body.error.code, 'NOT_FOUND')
    }
    const listed = await call('eve', 'GET', '/api/environments')
    t.same(listed.body.data, [], 'nothing listed')
    const upgrade = await call('eve', 'POST', '/api/environments/upgrade', { ids: [id] })
    t.same(upgrade.body.data.skipped, [{ environmentId: id, reason: 'not found' }], 'bulk upgrade skips it as not found')
    t.same((await call('eve', 'GET', '/api/environments/upgrades')).body.data, [])
    const backend = await call('eve', 'POST', '/api/environments/terraform-backend/create', {
      cloudCredentialId: '00000000-0000-4000-8000-000000000000',
      bucket: 'some-bucket',
      environmentId: id,
    })
    t.equal(backend.status, 400, 'the terraform backend refuses it as a field')
    const chat = await call('eve', 'POST', '/api/ai/chat', { messages: [{ role: 'user', content: 'hello' }], environmentId: id })
    t.equal(chat.status, 404, 'the assistant does not read it')
  })

  t.test('a viewer reads and gets 403 for every write', async (t) => {
    for (const [action, method, url, body] of routes) {
      const res = await call('other', method, url, body)
      if (action === 'read') t.equal(res.status, 200, `${method} ${url}`)
      else {
        t.equal(res.status, 403, `${method} ${url}`)
        t.equal(res.body.error.code, 'FORBIDDEN')
        t.match(res.body.error, {
          message: 'Insufficient permissions',
          details: [{ field: 'role', message: /role in team 'platform' is viewer/ }],
        })
      }
    }
    const got = await call('other', 'GET', `/api/environments/${id}`)
    t.equal(got.body.data.role, 'viewer')
    const listed = await call('other', 'GET', '/api/environments')
    t.same(
      listed.body.data.map((e: { name: string; team: string; role: string }) => [e.name, e.team, e.role]),
      [['shop-prod', 'platform', 'viewer']],
    )
    const upgrade = await call('other', 'POST', '/api/environments/upgrade', { ids: [id] })
    t.match(upgrade.body.data.skipped[0].reason, /viewer/, 'bulk upgrade names the role')
  })

  t.test('an operator generates and pushes but does not change', async (t) => {
    const generated = await call('carol', 'POST', `/api/environments/${id}/generate`, { format: 'terraform' })
    t.equal(generated.status, 202, 'generation queued')
    const pushed = await call('carol', 'POST', `/api/environments/${id}/push`, {})
    t.equal(pushed.status, 400, 'past the role check: the environment has no repository yet')
    t.equal(pushed.body.error.details[0].field, 'gitRepository')
    t.equal((await call('carol', 'PUT', `/api/environments/${id}`, { region: 'eu-west-2' })).status, 403)
    t.equal((await call('carol', 'DELETE', `/api/environments/${id}`)).status, 403)
    const jobs = await call('other', 'GET', `/api/environments/${id}/jobs`)
    t.equal(jobs.body.data.length, 1, "members see each other's jobs of the environment")
    const jobId = generated.body.data.id
    t.equal((await call('other', 'GET', `/api/jobs/${jobId}`)).status, 200, "a viewer opens an operator's job")
    t.equal((await call('eve', 'GET', `/api/jobs/${jobId}`)).status, 404, 'a non-member does not')
    t.equal((await call('eve', 'GET', `/api/jobs/${jobId}/files`)).status, 404)
  })

  t.test('the editor changes it; a service account member reads it', async (t) => {
    const put = await call('dev', 'PUT', `/api/environments/${id}`, { region: 'eu-west-2' })
    t.equal(put.status, 200)
    t.equal(put.body.data.team, 'platform')
    t.equal(put.body.data.region, 'eu-west-2')
    const pipeline = await call('pipeline', 'GET', `/api/environments/${id}`)
    t.equal(pipeline.status, 200)
    t.equal(pipeline.body.data.role, 'operator')
    // A person whose user name looks like the client's service account, signed in through another client, is not it.
    const lookalike = { token: ctx.issuer.sign(person('service-account-ies-cli')) }
    t.equal((await call(lookalike, 'GET', `/api/environments/${id}`)).status, 404, 'a look-alike user name is not the client')
  })

  t.test('a removed member loses access at once', async (t) => {
    const token = { token: ctx.tokenFor('other') }
    t.equal((await call(token, 'GET', `/api/environments/${id}`)).status, 200)
    t.equal((await call('admin', 'DELETE', '/api/teams/platform/members/user/other')).status, 204)
    t.equal((await call(token, 'GET', `/api/environments/${id}`)).status, 404, 'the same token, refused')
    t.same((await call(token, 'GET', '/api/environments')).body.data, [])
    t.equal((await call('admin', 'DELETE', '/api/teams/platform/members/user/other')).status, 404, 'not a member any more')
  })

  t.test('a groups claim gives a role with the token that carries it', async (t) => {
    const withGroup = { token: ctx.issuer.sign(person('frank', { groups: ['/ies/platform/viewer', '/other/thing'] })) }
    const got = await call(withGroup, 'GET', `/api/environments/${id}`)
    t.equal(got.status, 200)
    t.equal(got.body.data.role, 'viewer')
    t.equal((await call(withGroup, 'PUT', `/api/environments/${id}`, { region: 'eu-west-1' })).status, 403)
    const editor = { token: ctx.issuer.sign(person('frank', { groups: ['/ies/platform/editor'] })) }
    t.equal((await call(editor, 'GET', `/api/environments/${id}`)).body.data.role, 'editor', 'a changed group, the next token')
    const without = { token: ctx.issuer.sign(person('frank', { groups: [] })) }
    t.equal((await call(without, 'GET', `/api/environments/${id}`)).status, 404, 'the group removed, the next token')
    const newTeam = { token: ctx.issuer.sign(person('frank', { groups: ['/ies/data/editor'] })) }
    const made = await call(newTeam, 'POST', '/api/environments', { ...base, name: 'lake', team: 'data' })
    t.equal(made.status, 201, 'a team a group names exists from its first sign-in')
    t.equal(made.body.data.team, 'data')
  })

  t.test('lists are filtered by team; moves need an editor of both', async (t) => {
    const personal = await call('dev', 'POST', '/api/environments', { ...base, name: 'scratch' })
    const mine = await call('dev', 'GET', '/api/environments')
    t.same(mine.body.data.map((e: { name: string; team?: string; role: string }) => [e.name, e.team ?? null, e.role]).sort(), [
      ['scratch', null, 'owner'],
      ['shop-prod', null, 'owner'],
      ['shop-prod', 'platform', 'editor'],
    ])
    const filtered = await call('dev', 'GET', '/api/environments?team=platform')
    t.same(
      filtered.body.data.map((e: { name: string }) => e.name),
      ['shop-prod'],
    )
    t.equal(filtered.body.pagination.total, 1)

    const clash = await call('dev', 'PUT', `/api/environments/${personal.body.data.id}`, { team: 'data' })
    t.equal(clash.status, 400, 'dev is not in team data')
    const moved = await call('dev', 'PUT', `/api/environments/${personal.body.data.id}`, { team: 'platform', domain: 'example.com' })
    t.equal(moved.status, 200)
    t.equal(moved.body.data.team, 'platform')
    t.equal(moved.body.data.domain, 'example.com')
    t.equal((await call('carol', 'GET', `/api/environments/${personal.body.data.id}`)).status, 200, 'the team sees it now')
    t.same((await call('dev', 'GET', '/api/environments?team=platform')).body.data.map((e: { name: string }) => e.name).sort(), [
      'scratch',
      'shop-prod',
    ])
    const back = await call('dev', 'PUT', `/api/environments/${personal.body.data.id}`, { team: null })
    t.equal(back.status, 200)
    t.equal(back.body.data.team, undefined)
    t.equal((await call('carol', 'GET', `/api/environments/${personal.body.data.id}`)).status, 404, 'personal again')
  })

  t.test("a team's cloud credentials: its editors add them, its environments use them, nobody reads the secret", async (t) => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYTEAMSECRET'
    const keys = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: secret, region: 'eu-west-1' }
    t.equal(
      (await call('carol', 'POST', '/api/cloud-credentials', { name: 'team-aws', provider: 'aws', credentials: keys, team: 'platform' }))
        .status,
      403,
      'an operator adds none',
    )
    const made = await call('dev', 'POST', '/api/cloud-credentials', {
      name: 'team-aws',
      provider: 'aws',
      credentials: keys,
      team: 'platform',
    })
    t.equal(made.status, 201)
    t.equal(made.body.data.team, 'platform')
    const credId = made.body.data.id
    const personal = (await call('dev', 'POST', '/api/cloud-credentials', { name: 'mine', provider: 'aws', credentials: keys })).body.data
      .id
    const listed = await call('carol', 'GET', '/api/cloud-credentials')
    t.same(
      listed.body.data.map((c: { name: string; team?: string }) => [c.name, c.team]),
      [['team-aws', 'platform']],
      "members list the team's, not each other's",
    )
    t.equal((await call('carol', 'GET', `/api/cloud-credentials/${credId}`)).status, 200)
    t.equal((await call('carol', 'DELETE', `/api/cloud-credentials/${credId}`)).status, 403)
    t.equal((await call('eve', 'GET', `/api/cloud-credentials/${credId}`)).status, 404)
    const used = await call('dev', 'PUT', `/api/environments/${id}`, { cloudCredentialId: credId })
    t.equal(used.status, 200, "a team's environment uses the team's credential")
    const refused = await call('dev', 'PUT', `/api/environments/${id}`, { cloudCredentialId: personal })
    t.equal(refused.status, 400, "not a member's own credential")
    t.equal(refused.body.error.details[0].field, 'cloudCredentialId')
    for (const res of [made, listed, used, await call('carol', 'GET', `/api/cloud-credentials/${credId}`)]) {
      t.notOk(JSON.stringify(res.body).includes(secret), 'the secret is never shown')
    }
    t.equal((await call('dev', 'PUT', `/api/environments/${id}`, { cloudCredentialId: null })).status, 200)
    t.equal((await call('dev', 'DELETE', `/api/cloud-credentials/${credId}`)).status, 204, 'an editor deletes it')
  })

  t.test('teams are renamed and deleted by an admin', async (t) => {
    const renamed = await call('admin', 'PUT', `/api/teams/${teamId}`, { name: 'platform-eng' })
    t.equal(renamed.status, 200)
    t.equal((await call('dev', 'GET', `/api/environments/${id}`)).body.data.team, 'platform-eng', 'environments follow a rename')
    const refused = await call('admin', 'DELETE', '/api/teams/platform-eng')
    t.equal(refused.status, 409, 'a team with environments stays')
    t.equal((await call('dev', 'DELETE', `/api/environments/${id}`)).status, 204, 'the editor deletes it')
    t.equal((await call('admin', 'DELETE', '/api/teams/platform-eng')).status, 204)
    t.equal((await call('admin', 'DELETE', '/api/teams/platform-eng')).status, 404)
  })
})
