// The History tab of an environment in Chromium: reached from the overview's tabs, it lists the
// changes newest first with who and what, opens the diff of a change (the deploy key only named),
// and restores an earlier configuration after a confirmation; the restore is the newest entry and
// the overview shows the restored values. No secret reaches the page.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../harness/jobs.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const DEPLOY_KEY = 'iest_e2e_history_deploy_key_canary_0123456789'

t.test('the History tab: changes, their diff, and a restore', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const dev = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${ies.url}${path}`, { method, headers: dev, body: JSON.stringify(body) })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: { id: string } }).data
  }
  const env = await send(
    'POST',
    '/api/environments',
    environmentBody({ name: 'tab-history', gitRepository: { url: 'https://git.example.com/a/b.git', deployKey: DEPLOY_KEY } }),
  )
  await send('PUT', `/api/environments/${env.id}`, { domain: 'shop.example.org', services: { rds: { enabled: true } } })
  await send('PUT', `/api/environments/${env.id}`, { gitRepository: { deployKey: `${DEPLOY_KEY}2` } })

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  await page.goto(`${ies.url}/#/environments/${env.id}`)
  await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'History' }).click()
  const list = page.getByTestId('change-history')
  await list.waitFor()
  const items = list.locator('li.change-entry')
  t.equal(await items.count(), 3)
  t.match(await items.nth(0).textContent(), /#3.*Credential changed.*deploy key replaced.*dev/s, 'newest first: the key change')
  t.match(await items.nth(1).textContent(), /#2.*Changed.*2 fields.*dev/s)
  t.match(await items.nth(2).textContent(), /#1.*Created/s)

  await items.nth(1).getByRole('button', { name: 'Show changes' }).click()
  const diff = items.nth(1).getByRole('table', { name: 'Changes of #2' })
  await diff.waitFor()
  t.match(await diff.textContent(), /domain\s*shop\.example\.com\s*shop\.example\.org/)
  t.match(await diff.textContent(), /services\.rds\.enabled\s*not set\s*true/)
  await items.nth(0).getByRole('button', { name: 'Show changes' }).click()
  await items.nth(0).getByRole('table').waitFor()
  t.match(await items.nth(0).textContent(), /gitRepository\.deployKey\s*replaced \(secret, not shown\)/)
  await screenshot(page, '40-change-history')

  await items.nth(2).getByRole('button', { name: 'Restore' }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Restore the configuration of #1?' })
  await dialog.getByRole('button', { name: 'Restore' }).click()
  await list.getByTestId('change-4').waitFor()
  t.match(await items.nth(0).textContent(), /#4.*Restored.*configuration of #1/s, 'the restore is the newest change')

  await page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'Overview' }).click()
  await page.getByText('Deploy key stored').waitFor()
  t.match(await page.locator('dl.props').textContent(), /shop\.example\.com/, 'the overview shows the restored domain')
  const html = await page.content()
  t.notOk(html.includes(DEPLOY_KEY), 'no deploy key on the page')
  t.same(problems.errors, [])
})
