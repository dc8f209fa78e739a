// `npm run docs:screenshots`: refreshes the pictures of docs/ from the web UI as it is now. Runs the
// browser tests that take them (test/e2e/browser.ts `screenshot`, in Debian's Chromium against a real
// server), then copies each picture the docs show from .test-output/screenshots/ to docs/images/
// under the name the docs use. Fails when a test fails or a picture was not taken.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { SCREENSHOTS } from '../test/e2e/browser.ts'
import { REPO_ROOT } from './services/ferretdb.ts'

/** docs/images/<name>.png <- the test and the screenshot that show it. */
const PICTURES: Record<string, { test: string; shot: string }> = {
  'sign-in': { test: 'login', shot: '00-login' },
  'credential-form': { test: 'web-ui', shot: '02-credential-form' },
  credentials: { test: 'web-ui', shot: '03-credentials' },
  'wizard-basics': { test: 'web-ui', shot: '04-wizard-basics' },
  'wizard-services': { test: 'web-ui', shot: '05-wizard-services' },
  'wizard-review': { test: 'web-ui', shot: '06-wizard-review' },
  'environment-detail': { test: 'web-ui', shot: '07-environment-detail' },
  generate: { test: 'generate-and-fallback', shot: '13-generate' },
  'catalog-stale': { test: 'live-catalog', shot: '15-wizard-catalog-stale' },
  push: { test: 'push', shot: '16-push' },
  assistant: { test: 'wizard-assistant', shot: '17-wizard-assistant' },
}

const tests = [...new Set(Object.values(PICTURES).map((p) => `test/e2e/${p.test}.test.ts`))]
const run = spawnSync('npx', ['tap', ...tests], { cwd: REPO_ROOT, stdio: 'inherit' })
if (run.status !== 0) {
  console.error('docs:screenshots: a browser test failed; docs/images/ is unchanged')
  process.exit(1)
}
const images = path.join(REPO_ROOT, 'docs/images')
mkdirSync(images, { recursive: true })
const missing = Object.values(PICTURES).filter((p) => !existsSync(path.join(SCREENSHOTS, `${p.shot}.png`)))
if (missing.length > 0) {
  console.error(`docs:screenshots: not taken: ${missing.map((p) => `${p.shot} (${p.test})`).join(', ')}`)
  process.exit(1)
}
for (const [name, { shot }] of Object.entries(PICTURES))
  copyFileSync(path.join(SCREENSHOTS, `${shot}.png`), path.join(images, `${name}.png`))
console.log(`docs:screenshots: ${Object.keys(PICTURES).length} pictures in docs/images/`)
