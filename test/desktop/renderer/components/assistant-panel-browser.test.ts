// The assistant panel in Chromium against a real server (built-in assistant): ask for a draft
// check, get catalog-checked suggestions, apply one and see the wizard's draft change. Then, with a
// fixed reply: "Apply all", the catalog labels beside the paths, and the reply's lists, at 420 px.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { CHROMIUM, screenshot } from '../../../e2e/browser.ts'
import { startTestApp } from '../../../harness/app.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')

// A minimal wizard: holds a draft, shows it, and applies suggestions by path.
const ENTRY = `
import { createElement as h, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { AssistantPanel } from './desktop/src/renderer/components/AssistantPanel.tsx'

function setAt(draft, path, value) {
  const next = structuredClone(draft)
  const parts = path.split('.')
  if (parts.length === 1) next[path] = value
  else { next.services ??= {}; next.services[parts[1]] = { ...next.services[parts[1]], [parts[2]]: value } }
  return next
}

async function callApi(request) {
  if (window.FAKE_REPLY) return window.FAKE_REPLY
  const res = await fetch('/api/ai/chat', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + window.TOKEN }, body: JSON.stringify(request) })
  const body = await res.json()
  if (!res.ok) throw new Error(body.error.message)
  return body
}

function Wizard() {
  const [draft, setDraft] = useState({ name: 'shop', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', domain: '', services: { eks: { enabled: true } }, gitRepository: { deployKey: 'SECRET-DEPLOY-KEY' } })
  return h('div', null, h('pre', { id: 'draft', style: { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } }, JSON.stringify(draft)), h(AssistantPanel, { draft, callApi, labelOf: (p) => (window.LABELS ?? {})[p], onApply: (p, v) => { (window.APPLIED ??= []).push([p, v]); setDraft((d) => setAt(d, p, v)) } }))
}
createRoot(document.getElementById('root')).render(h(Wizard))
`

async function bundle() {
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'tsx', sourcefile: 'assistant-entry.tsx' },
    bundle: true,
    format: 'iife',
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  })
  return out.outputFiles[0].text.replace(/<\/script/g, '<\\/script')
}

t.test('assistant panel in the browser', async (t) => {
  const ctx = await startTestApp(t)
  const script = await bundle()
  const browser = await chromium.launch(CHROMIUM)
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const sent: string[] = []
  page.on('request', (r) => {
    if (r.url().endsWith('/api/ai/chat')) sent.push(r.postData() ?? '')
  })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.route(`${ctx.url}/assistant-test`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><div id="root"></div><script>window.TOKEN=${JSON.stringify(ctx.tokenFor('dev'))}</script><script>${script}</script>`,
    }),
  )
  await page.goto(`${ctx.url}/assistant-test`)

  await page.getByRole('button', { name: 'What is missing for a working stack?' }).click()
  const apply = page.getByRole('button', { name: 'Apply services.vpc.enabled = true' })
  await apply.waitFor({ timeout: 10_000 })
  t.match(await page.getByRole('log').textContent(), /need a network/)

  await apply.click()
  await page.getByRole('button', { name: 'Apply services.vpc.enabled = true' }).getByText('Applied').waitFor()
  const draft = JSON.parse((await page.locator('#draft').textContent()) ?? '{}')
  t.same(draft.services.vpc, { enabled: true }, 'the suggestion is applied to the wizard draft')

  await page.getByLabel('Ask the assistant').fill('set region to eu-central-1')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.getByRole('button', { name: 'Apply region = "eu-central-1"' }).click()
  await page.waitForFunction(() => document.getElementById('draft')?.textContent?.includes('eu-central-1'))

  t.equal(sent.length, 2)
  t.notOk(
    sent.some((body) => body.includes('SECRET-DEPLOY-KEY')),
    'the deploy key never leaves the wizard',
  )
  t.same(
    JSON.parse(sent[1]).messages.map((m: { role: string }) => m.role),
    ['user', 'assistant', 'user'],
    'the conversation is sent along',
  )
  t.same(errors, [])
})

const FAKE_REPLY = {
  message: {
    role: 'assistant',
    content: '**Plan**: a network first.\n- enable `services.vpc.enabled`\n- then `services.eks.enabled`\nDone <b>not bold</b>',
  },
  suggestions: [
    { path: 'services.vpc.enabled', value: true, reason: 'EKS needs a network' },
    { path: 'services.eks.enabled', value: true, reason: 'You asked for Kubernetes' },
    { path: 'services.eks.endpointPublicAccess', value: false, reason: 'Keep the API private' },
    { path: 'region', value: 'eu-central-1', reason: 'Closer to you' },
  ],
}
const LABELS = { 'services.eks.endpointPublicAccess': 'EKS · Public API endpoint', region: 'Region' }

t.test('apply all, catalog labels and the reply as lists (a fixed reply, 420 px wide)', async (t) => {
  const script = await bundle()
  const browser = await chromium.launch(CHROMIUM)
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 420, height: 900 } })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  const url = 'http://assistant.test/panel'
  await page.route(url, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><link rel="stylesheet" href="/styles.css"><div id="root"></div><script>window.FAKE_REPLY=${JSON.stringify(FAKE_REPLY)};window.LABELS=${JSON.stringify(LABELS)}</script><script>${script}</script>`,
    }),
  )
  await page.route('http://assistant.test/styles.css', (route) =>
    route.fulfill({ contentType: 'text/css', path: path.join(ROOT, 'desktop/src/renderer/styles.css') }),
  )
  await page.goto(url)
  await page.getByLabel('Ask the assistant').fill('plan my cluster')
  await page.getByRole('button', { name: 'Send' }).click()
  const all = page.getByRole('button', { name: 'Apply all 4 suggestions' })
  await all.waitFor()

  // the reply: a paragraph with a strong lead, a list of two items with code, the rest as text
  const content = page.locator('.assistant-assistant .assistant-content')
  t.equal(await content.locator('strong').textContent(), 'Plan')
  t.same(await content.locator('ul > li').allTextContents(), ['enable services.vpc.enabled', 'then services.eks.enabled'])
  t.equal(await content.locator('li code').count(), 2)
  t.equal(await content.locator('p').last().textContent(), 'Done <b>not bold</b>', 'markup in the reply is text')
  t.equal(await content.locator('b').count(), 0)

  // labels: the catalog's label first, the path in smaller code beside it; booleans read on/off
  const items = page.getByRole('list', { name: 'Suggestions' }).getByRole('listitem')
  const endpoint = items.filter({ has: page.getByRole('button', { name: 'Apply services.eks.endpointPublicAccess = false' }) })
  t.equal(await endpoint.locator('.assistant-label').textContent(), 'EKS · Public API endpoint')
  t.equal(await endpoint.locator('code.assistant-path').textContent(), 'services.eks.endpointPublicAccess')
  t.match(await endpoint.textContent(), /= off/)
  t.match(await items.nth(3).textContent(), /^Region region = "eu-central-1"Closer to you/)
  const vpc = items.nth(0)
  t.equal(await vpc.locator('.assistant-label').count(), 0, 'no label: the path as before')
  t.match(await vpc.textContent(), /^services\.vpc\.enabled = onEKS needs a network/)

  await screenshot(page, 'assistant-panel-420')

  // one applied by hand: "Apply all" counts what is left, then applies the rest once each, in order
  await page.getByRole('button', { name: 'Apply services.eks.enabled = true' }).click()
  const rest = page.getByRole('button', { name: 'Apply all 3 suggestions' })
  await rest.waitFor()
  t.equal(await all.count(), 0)
  await rest.click()
  const done = page.getByRole('button', { name: 'All applied' })
  await done.waitFor()
  t.ok(await done.isDisabled(), 'nothing left to apply')
  t.same(
    await page.evaluate(() => (window as unknown as { APPLIED: unknown }).APPLIED),
    [
      ['services.eks.enabled', true],
      ['services.vpc.enabled', true],
      ['services.eks.endpointPublicAccess', false],
      ['region', 'eu-central-1'],
    ],
    'every suggestion once, the rest in the order given',
  )
  t.equal(
    await page
      .getByRole('button', { name: /^Apply / })
      .filter({ hasText: 'Applied' })
      .count(),
    4,
    'each marked Applied',
  )
  const draft = JSON.parse((await page.locator('#draft').textContent()) ?? '{}')
  t.match(draft, { region: 'eu-central-1', services: { vpc: { enabled: true }, eks: { enabled: true, endpointPublicAccess: false } } })

  t.ok(
    await page.evaluate(() =>
      [document.documentElement, document.querySelector('.assistant-panel')!, document.querySelector('.assistant-log')!].every(
        (el) => el.scrollWidth <= el.clientWidth,
      ),
    ),
    'no horizontal scroll at 420 px',
  )
  t.same(errors, [])
})
