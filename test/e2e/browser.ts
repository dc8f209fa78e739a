// Debian's Chromium driven by playwright-core for the web UI tests, the built renderer, a session
// injected for a harness user (until a test logs in for real), and screenshots under the
// git-ignored .test-output/screenshots/.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const SCREENSHOTS = path.join(ROOT, '.test-output/screenshots')

export const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/** The renderer must be built (`npm run build -w desktop`); build it once when it is not. */
export function ensureRendererBuilt() {
  if (!existsSync(path.join(ROOT, 'desktop/dist/index.html'))) {
    execFileSync('npm', ['run', 'build', '-w', 'desktop'], { cwd: ROOT, stdio: 'ignore' })
  }
}

export async function launchBrowser(t: Teardown): Promise<Browser> {
  ensureRendererBuilt()
  const browser = await chromium.launch(CHROMIUM)
  t.teardown(() => browser.close())
  return browser
}

export interface PageProblems {
  errors: string[]
}

/** A page that records uncaught errors and CSP violations (each is a test failure worth reading). */
export async function newPage(context: BrowserContext): Promise<{ page: Page; problems: PageProblems }> {
  const page = await context.newPage()
  const problems: PageProblems = { errors: [] }
  page.on('pageerror', (e) => problems.errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.errors.push(`csp: ${m.text()}`)
  })
  return { page, problems }
}

/** The renderer's session storage entry for an access token (what its own login stores). */
export function sessionTokens(token: string): string {
  const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number
  return JSON.stringify({ accessToken: token, refreshToken: null, idToken: null, expiresAt: exp * 1000, refreshExpiresAt: null })
}

/** A browser context already signed in as `token`'s user (the renderer's own session storage shape). */
export async function signedInContext(browser: Browser, token: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true })
  await context.addInitScript((value) => sessionStorage.setItem('ies.tokens', value), sessionTokens(token))
  return context
}

/** A signed-in page on the web UI's new-environment wizard, with the environment name and global prefix typed. */
export async function newEnvironmentWizard(t: Teardown, url: string, token: string, name: string, prefix = 'acme') {
  const browser = await launchBrowser(t)
  const { page, problems } = await newPage(await signedInContext(browser, token))
  await page.goto(`${url}/#/environments/new`)
  await page.getByLabel('Environment name').fill(name)
  await page.getByLabel('Global prefix').fill(prefix)
  return { page, problems }
}

/**
 * Everything the page's origin keeps in the browser, as text: localStorage, sessionStorage, every
 * IndexedDB database's records, the Cache Storage entries, and the context's cookies.
 */
export async function browserStorageDump(page: Page): Promise<string> {
  const inPage = await page.evaluate(async () => {
    const parts: string[] = []
    for (const store of [localStorage, sessionStorage]) {
      for (let i = 0; i < store.length; i++) parts.push(`${store.key(i)}=${store.getItem(store.key(i)!)}`)
    }
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name!)
        req.onsuccess = () => resolve(req.result)
        req.onerror = () => reject(req.error)
      })
      for (const name of [...db.objectStoreNames]) {
        const all = await new Promise<unknown[]>((resolve, reject) => {
          const req = db.transaction(name).objectStore(name).getAll()
          req.onsuccess = () => resolve(req.result)
          req.onerror = () => reject(req.error)
        })
        parts.push(`idb:${info.name}/${name}=${JSON.stringify(all)}`)
      }
      db.close()
    }
    if ('caches' in self) {
      for (const name of await caches.keys()) {
        const cache = await caches.open(name)
        for (const req of await cache.keys()) parts.push(`cache:${req.url}=${await (await cache.match(req))!.text()}`)
      }
    }
    return parts.join('\n')
  })
  const cookies = (await page.context().cookies()).map((c) => `cookie:${c.name}=${c.value}`).join('\n')
  return `${inPage}\n${cookies}`
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}
