// The README's five steps, followed as a newcomer follows them: `npm start` from the checkout with
// its embedded defaults (free ports and a data folder of its own instead of 3000 and .data/, so it can
// run beside anything); the web UI in Chromium, signed in on the sign-in page with the login the
// README names; a cloud credential added under the name the README gives; an environment created in
// the wizard, and the README's example file applied with `ies login` (device flow, as the same user)
// and `ies apply -f`; then generate and download in the UI, and `ies generate --out`. What the README
// tells the user is read from it, so the page and this test cannot drift apart.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { freePort } from '../../scripts/services/net.ts'
import { REPO_ROOT } from '../../scripts/services/ferretdb.ts'
import { IES_BIN, iesRunner, startLogin, type CliServer } from '../cli/helpers.ts'
import { launchBrowser, newPage } from '../e2e/browser.ts'
import { approveDevice } from '../harness/scripted-login.ts'

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')

/** The first capture of `pattern` in the README, or a failure that says which instruction is missing. */
function fromReadme(pattern: RegExp, what: string): string {
  const match = pattern.exec(readme)
  if (!match) throw new Error(`README.md no longer says ${what} (${pattern})`)
  return match[1]
}

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) if (await check()) return
  throw new Error(`timed out: ${what}`)
}

t.test("the README's five steps, from npm start to a downloaded archive", async (t) => {
  t.match(readme, 'ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci && npm start', 'step 1 is the quick start')
  t.match(readme, 'open http://127.0.0.1:3000', 'step 2 opens the default address')
  const [user, password] = [fromReadme(/sign in as `(\w+)`/, 'the login'), fromReadme(/with the\s+password `([^`]+)`/, 'the password')]
  const credentialName = fromReadme(/a name \(`([\w-]+)`/, "the credential's name")
  const exampleFile = fromReadme(/npx ies apply -f (\S+)/, 'the example file')

  // --- 1. npm start
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ies-five-steps-'))
  const [port, dbPort] = [await freePort(), await freePort()]
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), FERRETDB_PORT: String(dbPort), DATA_DIR: dataDir }
  for (const name of ['MONGODB_URI', 'NODE_ENV', 'PUBLIC_URL', 'AUTH_URL', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_FILE', 'REDIS_URL', 'HOST'])
    delete env[name]
  let output = ''
  const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  npm.stdout.on('data', (chunk) => (output += chunk))
  npm.stderr.on('data', (chunk) => (output += chunk))
  t.teardown(async () => {
    try {
      process.kill(-npm.pid!, 'SIGTERM')
      await until('npm start stopped', async () => npm.exitCode !== null || npm.signalCode !== null, 20_000)
    } catch {
      process.kill(-npm.pid!, 'SIGKILL')
    }
    await rm(dataDir, { recursive: true, force: true })
  })
  const url = `http://127.0.0.1:${port}`
  await until('IES is running', async () => /IES is running/.test(output), 180_000).catch((err) => {
    t.comment(output.slice(-3000))
    throw err
  })
  t.match(output, `Logins        ${user} / ${password}`, 'npm start prints the login the README names')

  // --- 2. open the web UI and sign in
  const browser = await launchBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true })
  const { page, problems } = await newPage(context)
  await page.goto(url)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('input[name="username"]').fill(user)
  await page.locator('input[name="password"]').fill(password)
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(`${url}/`) && !u.pathname.startsWith('/realms')),
    page
      .locator('form')
      .first()
      .evaluate((f) => (f as HTMLFormElement).requestSubmit()),
  ])
  await page.getByRole('heading', { name: 'Environments', exact: true }).waitFor()
  t.equal(await page.getByTestId('username').textContent(), user, 'signed in')

  // --- 3. add a cloud credential
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cloud credentials', exact: true }).click()
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByLabel('Name').fill(credentialName)
  await page.getByLabel('Access key ID').fill('AKIAFIVESTEPS0000001')
  await page.getByLabel('Secret access key').fill('five-steps-secret-access-key-0000000000')
  await page.getByLabel('Default region').fill('eu-central-1')
  await page.getByRole('button', { name: 'Save credential' }).click()
  await page.getByRole('table', { name: 'Cloud credentials' }).getByText(credentialName, { exact: true }).waitFor()

  // --- 4a. an environment in the wizard
  await page.goto(`${url}/#/environments/new`)
  await page.getByLabel('Environment name').fill('first-env')
  await page.getByLabel('Global prefix').fill('first')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  await page.locator('[data-service="vpc"]').getByRole('switch').click()
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'first-env', exact: true }).waitFor()

  // --- 5. generate and download
  const panel = page.locator('section[aria-labelledby="generate-title"]')
  await panel.getByLabel('Format').selectOption({ label: 'Terraform' })
  await panel.getByRole('button', { name: 'Generate' }).click()
  const done = panel.getByRole('button', { name: /^Download / })
  await done.waitFor({ timeout: 120_000 })
  const [download] = await Promise.all([page.waitForEvent('download'), done.click()])
  t.match(download.suggestedFilename(), /^first-env-terraform-[0-9a-f]{7}\.zip$/, 'the archive is downloaded')
  t.same(problems.errors, [], 'no page errors or CSP violations')

  // --- 4b and 5 from a terminal: ies login as the same user, ies apply -f the README's example, ies generate
  // `npx ies`, as the README says: the checkout's command, not the one-file build the CLI tests run.
  const ies = iesRunner({ teardown: (fn) => t.teardown(fn), url } as CliServer, { IES_SERVER: url }, { bin: IES_BIN })
  const { device, exited } = await startLogin(ies)
  await approveDevice(
    { device_code: '', user_code: device.code, verification_uri: device.uri, expires_in: 600 },
    { username: user, password },
  )
  t.equal(await exited, 0, 'ies login')
  const name = (parse(readFileSync(path.join(REPO_ROOT, exampleFile), 'utf8')) as { name: string }).name
  const applied = await ies.run(['apply', '-f', path.join(REPO_ROOT, exampleFile)])
  t.equal(applied.code, 0, `ies apply -f ${exampleFile}: ${applied.stderr}`)
  t.match(applied.stdout, new RegExp(`^\\+ created +${name} `, 'm'), 'created')
  const archive = path.join(dataDir, `${name}.zip`)
  const generated = await ies.run(['generate', name, '--out', archive])
  t.equal(generated.code, 0, `ies generate ${name} --out: ${generated.stderr}`)
  t.ok(existsSync(archive), 'the archive is saved')

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments', exact: true }).click()
  await page.getByRole('link', { name, exact: true }).waitFor()
  t.pass(`${name}, applied from the terminal, is in the web UI's list`)
})
