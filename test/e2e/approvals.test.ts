// The Approvals page in Chromium: carol, an operator of the team, sees dev's production push waiting,
// rejects one with a reason and approves the other; dev, who asked, sees them without the buttons,
// and a push from the environment's page tells dev it awaits approval.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { eventually } from '../harness/eventually.ts'
import { approvingTeam, tokenOf } from '../plugins/approvals/fixtures.ts'
import { launchBrowser, newPage, signedInContext } from './browser.ts'

t.test('approve and reject pushes on the Approvals page', async (t) => {
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  ctx.config.publicUrl = ctx.url
  const { call, environment, asOperator } = await approvingTeam(t, ctx)
  const prod = await environment('shop-prod', 'main')
  await asOperator()
  await call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })
  const first = (await call('dev', 'POST', `/api/environments/${prod.id}/push`, {})).body.data.id
  const second = (await call('dev', 'POST', `/api/environments/${prod.id}/push`, {})).body.data.id
  const browser = await launchBrowser(t)

  const dev = await newPage(await signedInContext(browser, tokenOf(ctx, 'dev')))
  await dev.page.goto(`${ctx.url}/#/approvals`)
  const devTable = dev.page.getByRole('table', { name: 'Approvals' })
  await devTable.waitFor()
  t.equal(await devTable.getByRole('button', { name: 'Approve' }).count(), 0, 'the requester gets no buttons')
  t.match(await devTable.locator(`tr[data-job="${first}"]`).textContent(), /Another operator of the team decides/)

  const carol = await newPage(await signedInContext(browser, tokenOf(ctx, 'carol')))
  await carol.page.goto(ctx.url)
  await carol.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click()
  const table = carol.page.getByRole('table', { name: 'Approvals' })
  await table.waitFor()
  const row = (id: string) => table.locator(`tr[data-job="${id}"]`)
  t.match(await row(first).textContent(), /shop-prod.*platform.*dev/)
  await row(second).getByLabel('Reason to reject the push of shop-prod').fill('freeze week')
  await row(second).getByRole('button', { name: 'Reject' }).click()
  await row(second).waitFor({ state: 'detached' })
  await row(first).getByRole('button', { name: 'Approve' }).click()
  await carol.page.getByText('No pushes awaiting approval').waitFor()

  const job = async (id: string) => (await call('dev', 'GET', `/api/jobs/${id}`)).body.data
  t.match(await job(second), { status: 'failed', error: { code: 'APPROVAL_REJECTED', message: /carol.*freeze week/ } })
  const approved = await eventually(
    () => job(first),
    (j) => j.status !== 'awaiting-approval',
  )
  t.match(approved.approval, { decision: 'approved', decidedBy: { username: 'carol' } })

  // A push from the environment's page says it waits, and where it is decided.
  await dev.page.goto(`${ctx.url}/#/environments/${prod.id}`)
  const panel = dev.page.locator('section[aria-labelledby="push-title"]')
  await panel.getByRole('button', { name: 'Push to Git' }).click()
  const waiting = panel.getByTestId('awaiting-approval')
  await waiting.waitFor()
  t.match(await waiting.textContent(), /Awaiting approval.*Approvals/)
  t.match((await call('carol', 'GET', '/api/approvals')).body.data, [{ requestedBy: { username: 'dev' }, canDecide: true }])
  t.same(carol.problems.errors, [])
  t.same(dev.problems.errors, [])
})
