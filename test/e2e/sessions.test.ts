// An unknown address shows a not-found page; a session that ends without the user
// signing out says so and why on the sign-in screen (and the sign-in returns to the same page, as
// login.test.ts checks); an explicit sign-out says nothing of the kind.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, sessionTokens, signedInContext } from './browser.ts'

t.test('not-found page; the session ended, and why', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)

  // --- an address the app does not know
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  await page.goto(`${ies.url}/#/nowhere/at/all`)
  const notFound = page.getByTestId('not-found')
  await notFound.waitFor()
  t.match(await notFound.textContent(), /Nothing lives at \/nowhere\/at\/all/)
  await screenshot(page, '27-not-found')
  await notFound.getByRole('link', { name: 'Go to your environments' }).click()
  await page.getByRole('heading', { name: 'Environments', exact: true }).waitFor()
  t.same(problems.errors, [])

  // --- a token the server refuses (a signature from a key it does not trust): the session ended
  const refused = await browser.newContext()
  const other = await newPage(refused)
  const { generateKeyPairSync } = await import('node:crypto')
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const forged = ies.issuer.sign({ sub: 'x', preferred_username: 'dev' }, { key: { kid: ies.issuer.current.kid, privateKey } as never })
  await refused.addInitScript((value) => sessionStorage.setItem('ies.tokens', value), sessionTokens(forged))
  await other.page.goto(`${ies.url}/#/credentials`)
  const ended = other.page.getByTestId('session-ended')
  await ended.waitFor()
  t.match(await ended.textContent(), /Your session ended.*no longer accepts your sign-in.*continue where you were/)
  await screenshot(other.page, '28-session-ended')

  // --- an access token that expired with nothing to renew it: the same screen says it could not be renewed
  const expiredContext = await browser.newContext()
  const expired = await newPage(expiredContext)
  const old = ies.tokenFor('dev')
  await expiredContext.addInitScript(
    (value) => sessionStorage.setItem('ies.tokens', value),
    JSON.stringify({ ...JSON.parse(sessionTokens(old)), expiresAt: Date.now() - 1000 }),
  )
  await expired.page.goto(`${ies.url}/#/credentials`)
  await expired.page.getByTestId('session-ended').waitFor()
  t.match(await expired.page.getByTestId('session-ended').textContent(), /could not be renewed/)

  // --- signing out is not "the session ended"
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.equal(await page.getByTestId('session-ended').count(), 0)
})
