// An environment's jobs in the UI: what was generated before is listed after a
// reload, newest first, each generation with its own download and its file list; a generation made
// on the page joins the list when it ends; older jobs come by "Show older jobs".
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { environmentBody, generateAndWait } from '../harness/jobs.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('job history on the environment page', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const dev = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify(environmentBody({ name: 'history-env' })),
  })
  const envId = ((await created.json()) as { data: { id: string } }).data.id
  // Eleven earlier generations: one more than the first page.
  const earlier = []
  for (let i = 0; i < 11; i++) earlier.push(await generateAndWait(ies, envId, { format: i === 10 ? 'helm' : 'terraform' }))

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  await page.goto(`${ies.url}/#/environments/${envId}`)
  const history = page.getByTestId('job-history')
  await history.waitFor()
  const entries = history.getByTestId('job-entry')
  t.equal(await entries.count(), 10, 'the first page')
  t.equal(await entries.first().getAttribute('data-job-id'), earlier[10].id, 'newest first')
  t.match(await entries.first().textContent(), /Generation.*succeeded.*Helm/s)

  await entries.first().getByRole('button', { name: 'Show files' }).click()
  const files = entries.first().getByTestId('job-files')
  await files.waitFor()
  t.match(await files.textContent(), /charts\/.*values\.yaml/, "the helm generation's files")
  t.match(await files.textContent(), /\.ies\/generation\.json/)

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    entries
      .nth(1)
      .getByRole('button', { name: /^Download / })
      .click(),
  ])
  t.match(download.suggestedFilename(), /^history-env-terraform-[0-9a-f]{7}\.zip$/, "the second entry's own archive")

  await page.getByRole('button', { name: 'Show older jobs' }).click()
  await entries.nth(10).waitFor()
  t.equal(await entries.nth(10).getAttribute('data-job-id'), earlier[0].id, 'the oldest, on the next page')
  t.equal(await page.getByRole('button', { name: 'Show older jobs' }).count(), 0, 'no more pages')
  await screenshot(page, '30-job-history')

  // A generation made here joins the list when it ends, and the list survives a reload.
  const panel = page.locator('section[aria-labelledby="generate-title"]')
  await panel.getByRole('button', { name: 'Generate' }).click()
  await panel.getByRole('button', { name: /^Download / }).waitFor({ timeout: 120_000 })
  await page.waitForFunction(
    (old) => document.querySelector('[data-testid="job-entry"]')?.getAttribute('data-job-id') !== old,
    earlier[10].id,
  )
  const newest = await entries.first().getAttribute('data-job-id')
  await page.reload()
  await history.waitFor()
  t.equal(await entries.first().getAttribute('data-job-id'), newest, 'after a reload: the same newest job')
  t.same(problems.errors, [])
})
