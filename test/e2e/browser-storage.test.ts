// No secret in the browser: secrets typed into the credential form and the
// wizard's deploy key never reach localStorage, sessionStorage, IndexedDB, Cache Storage or a
// cookie, not even in a draft; drafts belong to the signed-in user; sign-out deletes them when the
// user asks. Real server and database, Debian's Chromium.
import t from 'tap'
import type { Page } from 'playwright-core'
import { startTestApp, type TestApp, type TestUser } from '../harness/app.ts'
import { browserStorageDump, launchBrowser, newPage, screenshot, sessionTokens } from './browser.ts'

const SECRETS = {
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9',
  awsSession: 'FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789',
  azureSecret: 'azure~Client~Secret~0123456789abcdefXYZ',
  gcpKey: 'gcpPrivateKeyMaterial0123456789EXAMPLE',
  deployKey: 'ghp_deployKeyTypedInTheWizard0123456789',
}

async function signInAs(page: Page, ies: TestApp, user: TestUser, hash: string) {
  await page.evaluate((value) => sessionStorage.setItem('ies.tokens', value), sessionTokens(ies.tokenFor(user)))
  await page.evaluate((h) => (location.hash = h), hash)
  await page.reload()
  await page.getByTestId('username').waitFor()
}

async function signOut(page: Page, deleteDrafts: boolean) {
  await page.getByRole('button', { name: 'Sign out' }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Sign out?' })
  await dialog.waitFor()
  if (deleteDrafts) await dialog.getByLabel('Also delete my unsaved wizard drafts from this browser').check()
  await dialog.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
}

t.test('no secret in browser storage; drafts per user; sign-out deletes drafts on request', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } })
  const { page, problems } = await newPage(context)
  await page.goto(ies.url)
  await signInAs(page, ies, 'dev', '#/credentials')

  const assertNoSecret = async (when: string) => {
    const dump = await browserStorageDump(page)
    for (const [name, secret] of Object.entries(SECRETS)) t.notOk(dump.includes(secret), `${when}: ${name} is in no browser storage`)
    return dump
  }

  // --- credential forms: an AWS credential saved, an Azure and a GCP one typed and abandoned
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByLabel('Name').fill('sandbox')
  await page.getByLabel('Access key ID').fill('AKIAEXAMPLE000000001')
  await page.getByLabel('Secret access key').fill(SECRETS.awsSecret)
  await page.getByLabel('Session token').fill(SECRETS.awsSession)
  await page.getByRole('button', { name: 'Save credential' }).click()
  await page.locator('tr[data-credential="sandbox"]').waitFor()
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByLabel('Provider').selectOption({ label: 'Azure' })
  await page.getByLabel('Client secret').fill(SECRETS.azureSecret)
  await assertNoSecret('while the Azure form is open')
  await page.getByLabel('Provider').selectOption({ label: 'Google Cloud' })
  await page.getByLabel('Service-account key (JSON)').fill(`{"private_key":"${SECRETS.gcpKey}"}`)
  await assertNoSecret('while the GCP form is open')

  // --- the wizard: a deploy key typed in the Git step, a draft saved as the user goes
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click()
  await page.getByRole('link', { name: 'New environment' }).click()
  await page.getByLabel('Environment name').fill('secret-shop')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Git repository' }).click()
  await page.getByLabel('Repository URL').fill('https://git.example.com/acme/shop.git')
  await page.getByLabel('Deploy key or access token (write-only)').fill(SECRETS.deployKey)
  await page.getByRole('button', { name: 'Review' }).click()
  const dump = await assertNoSecret('with the wizard on its review step')
  t.match(dump, /ies\.wizardDraft:[^=]+:new=.*secret-shop/, 'the draft itself is kept (without the key)')

  // the draft comes back after a reload, without the key, and says so
  await page.reload()
  const notice = page.getByTestId('draft-notice')
  await notice.waitFor()
  t.match(await notice.textContent(), /Drafts never keep secrets: enter the deploy key again/)
  await screenshot(page, '20-draft-without-secret')
  await page.getByRole('button', { name: 'Basics' }).click()
  t.equal(await page.getByLabel('Environment name').inputValue(), 'secret-shop')
  await page.getByRole('button', { name: 'Git repository' }).click()
  t.equal(await page.getByLabel('Repository URL').inputValue(), 'https://git.example.com/acme/shop.git')
  t.equal(await page.getByLabel('Deploy key or access token (write-only)').inputValue(), '', 'the key is not restored')
  await assertNoSecret('after the reload')

  // --- another user on the same browser does not see dev's draft
  await signOut(page, false)
  await signInAs(page, ies, 'other', '#/environments/new')
  await page.getByRole('heading', { name: 'New environment', exact: true }).waitFor()
  t.equal(await page.getByTestId('draft-notice').count(), 0, 'no "Draft restored" for another user')
  t.equal(await page.getByLabel('Environment name').inputValue(), '')

  // --- dev's draft is still there for dev; signing out with "delete my drafts" removes it
  await signOut(page, false)
  await signInAs(page, ies, 'dev', '#/environments/new')
  await page.getByTestId('draft-notice').waitFor()
  await page.getByRole('button', { name: 'Basics' }).click()
  t.equal(await page.getByLabel('Environment name').inputValue(), 'secret-shop')
  await signOut(page, true)
  t.notMatch(await browserStorageDump(page), /secret-shop/, 'the draft is gone from the browser')
  await signInAs(page, ies, 'dev', '#/environments/new')
  await page.getByRole('heading', { name: 'New environment', exact: true }).waitFor()
  t.equal(await page.getByTestId('draft-notice').count(), 0)
  await assertNoSecret('at the end')
  t.same(problems.errors, [])
})
