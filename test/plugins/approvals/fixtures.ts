// Shared by the approval tests: a team `platform` that requires approvals of production pushes, its
// members (dev: the requester, an operator; carol: operator; eve: viewer; the `ies-cli` pipeline
// client: operator), a production environment of the team pushing to a real Git server, and a caller.
import type { TestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { environmentBody } from '../../harness/jobs.ts'

export const DEPLOY_KEY = 'iest_c2VjcmV0LWRlcGxveS1rZXktZm9yLXRlc3Rz'

function person(username: string) {
  return {
    sub: `00000000-0000-4000-8000-${Buffer.from(username).toString('hex').padStart(12, '0').slice(0, 12)}`,
    preferred_username: username,
    email: `${username}@example.com`,
    realm_access: { roles: ['user'] },
  }
}

export type Who = 'admin' | 'dev' | 'other' | 'carol' | 'eve' | 'pipeline'

/** A bearer token of `who`, signed by the test app's issuer. */
export const tokenOf = (ctx: TestApp, who: Who): string =>
  who === 'carol' || who === 'eve'
    ? ctx.issuer.sign(person(who))
    : who === 'pipeline'
      ? ctx.issuer.sign({
          sub: '00000000-0000-4000-8000-00000000c11e',
          azp: 'ies-cli',
          preferred_username: 'service-account-ies-cli',
          realm_access: { roles: ['user'] },
        })
      : ctx.tokenFor(who)

/** A caller of the API as `who`: status and parsed body. */
export function caller(ctx: TestApp) {
  const token = (who: Who) => tokenOf(ctx, who)
  return async (who: Who, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const res = await ctx.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token(who)}` },
      ...(payload !== undefined && { payload: payload as object }),
    })
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined }
  }
}

/** The team, its members and settings, and a Git server with one repository `customer`. */
export async function approvingTeam(t: { teardown(fn: () => unknown): void }, ctx: TestApp) {
  const call = caller(ctx)
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const remote = await git.createRepo('customer', { 'README.md': '# shop\n' })
  const team = await call('admin', 'POST', '/api/teams', { name: 'platform' })
  if (team.status !== 201) throw new Error(`team: ${JSON.stringify(team.body)}`)
  for (const [kind, name, role] of [
    ['user', 'dev', 'operator'],
    ['user', 'carol', 'operator'],
    ['user', 'eve', 'viewer'],
    ['client', 'ies-cli', 'operator'],
  ]) {
    const set = await call('admin', 'PUT', `/api/teams/platform/members/${kind}/${name}`, { role })
    if (set.status !== 200) throw new Error(`member ${name}: ${JSON.stringify(set.body)}`)
  }
  // dev creates the environments: an editor for that moment.
  await call('admin', 'PUT', '/api/teams/platform/members/user/dev', { role: 'editor' })
  /** A team environment pushing to `branch` of the repository. */
  const environment = async (name: string, branch: string, tier = 'production') => {
    const body = {
      ...environmentBody({ name, team: 'platform', labels: { tier }, services: { vpc: { enabled: true, singleNatGateway: false } } }),
      gitRepository: { url: remote, branch, deployKey: DEPLOY_KEY },
    }
    const made = await call('dev', 'POST', '/api/environments', body)
    if (made.status !== 201) throw new Error(`environment ${name}: ${JSON.stringify(made.body)}`)
    return made.body.data as { id: string; name: string }
  }
  return {
    call,
    git,
    teamId: team.body.data.id as string,
    environment,
    asOperator: () => call('admin', 'PUT', '/api/teams/platform/members/user/dev', { role: 'operator' }),
  }
}
