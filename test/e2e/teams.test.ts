// The Teams page in Chromium: an admin sees no teams, creates one, opens its members (none yet),
// adds a service account as operator, changes its role, removes it and deletes the team; a refusal
// (a name the server does not accept) shows the server's message and keeps the list.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, signedInContext } from './browser.ts'

t.test('teams and members on the Teams page', async (t) => {
  const ctx = await startTestApp(t)
  ctx.config.publicUrl = ctx.url
  const call = async (method: 'GET', url: string) =>
    (await ctx.app.inject({ method, url, headers: ctx.auth('admin') })).json() as { data: any }
  const browser = await launchBrowser(t)
  const { page, problems } = await newPage(await signedInContext(browser, ctx.tokenFor('admin')))
  await page.goto(`${ctx.url}/#/teams`)
  await page.getByText('No teams').first().waitFor()

  await page.getByLabel('New team name').fill('platform')
  await page.getByRole('button', { name: 'Create team' }).click()
  const teams = page.getByRole('table', { name: 'Teams' })
  const row = teams.locator('tr[data-team="platform"]')
  await row.waitFor()

  await page.getByLabel('New team name').fill('Not A Name')
  await page.getByRole('button', { name: 'Create team' }).click()
  await page.getByRole('alert').first().waitFor()
  t.equal(await row.count(), 1, 'a refused create keeps the list')

  await row.getByRole('button', { name: 'Members' }).click()
  const region = page.getByRole('region', { name: 'Members of platform' })
  await region.getByText('No members yet').waitFor()
  await region.getByLabel('Kind', { exact: true }).selectOption({ label: 'Service account (client id)' })
  await region.getByLabel('Name', { exact: true }).fill('ies-cli')
  await region.getByLabel('Role', { exact: true }).selectOption({ label: 'operator: also generates, pushes' })
  await region.getByRole('button', { name: 'Add member' }).click()
  const member = region.getByRole('table', { name: 'Members of platform' }).locator('tr[data-member="ies-cli"]')
  await member.waitFor()
  t.match(await member.textContent(), /ies-cli.*service account/)
  await member.getByLabel('Role of ies-cli').selectOption({ label: 'editor: also creates, changes, deletes' })
  await page.getByText('ies-cli is editor').waitFor()
  const members = (await call('GET', '/api/teams/platform/members')).data
  t.match(members, [{ kind: 'client', name: 'ies-cli', role: 'editor' }])

  await member.getByRole('button', { name: 'Remove' }).click()
  await region.getByText('No members yet').waitFor()
  await row.getByRole('button', { name: 'Delete' }).click()
  await page.getByText('No teams').first().waitFor()
  t.same((await call('GET', '/api/teams')).data, [])
  t.same(problems.errors, [])
})
