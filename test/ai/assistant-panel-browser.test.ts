// The assistant panel in Chromium against a real server (built-in assistant): ask for a draft
// check, get catalog-checked suggestions, apply one and see the wizard's draft change.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { CHROMIUM } from '../e2e/browser.ts'
import { startTestApp } from '../harness/app.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

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
  const res = await fetch('/api/ai/chat', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + window.TOKEN }, body: JSON.stringify(request) })
  const body = await res.json()
  if (!res.ok) throw new Error(body.error.message)
  return body
}

function Wizard() {
  const [draft, setDraft] = useState({ name: 'shop', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', domain: '', services: { eks: { enabled: true } }, gitRepository: { deployKey: 'SECRET-DEPLOY-KEY' } })
  return h('div', null, h('pre', { id: 'draft' }, JSON.stringify(draft)), h(AssistantPanel, { draft, callApi, onApply: (p, v) => setDraft((d) => setAt(d, p, v)) }))
}
createRoot(document.getElementById('root')).render(h(Wizard))
`

t.test('assistant panel in the browser', async (t) => {
  const ctx = await startTestApp(t)
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'tsx', sourcefile: 'assistant-entry.tsx' },
    bundle: true,
    format: 'iife',
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  })
  const script = bundle.outputFiles[0].text
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
      body: `<!doctype html><div id="root"></div><script>window.TOKEN=${JSON.stringify(ctx.tokenFor('dev'))}</script><script>${script.replace(/<\/script/g, '<\\/script')}</script>`,
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
