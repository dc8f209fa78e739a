// The users page for admins. An admin token gets the "Users" section listing
// everyone who signed in; a plain user is not offered it, and the address answers with the server's
// refusal, not a broken page.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('admins see the users page; others are not offered it', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  for (const user of ['dev', 'other'] as const) await fetch(`${ies.url}/api/users/me`, { headers: ies.auth(user) })
  const browser = await launchBrowser(t)

  const admin = await newPage(await signedInContext(browser, ies.tokenFor('admin')))
  await admin.page.goto(ies.url)
  await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
  const table = admin.page.getByRole('table', { name: 'Users' })
  await table.waitFor()
  for (const name of ['dev', 'other', 'admin']) t.equal(await table.locator(`tr[data-user="${name}"]`).count(), 1, `${name} is listed`)
  t.match(await table.locator('tr[data-user="dev"]').textContent(), /dev@example\.com/)
  await screenshot(admin.page, '29-users')
  t.same(admin.problems.errors, [])

  const dev = await newPage(await signedInContext(browser, ies.tokenFor('dev')))
  await dev.page.goto(ies.url)
  await dev.page.getByTestId('username').waitFor()
  t.equal(await dev.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).count(), 0, 'not offered')
  await dev.page.goto(`${ies.url}/#/users`)
  await dev.page.getByText('Loading users failed').waitFor()
  t.match(await dev.page.getByRole('alert').first().textContent(), /Insufficient permissions/)
  t.same(dev.problems.errors, [])
})
