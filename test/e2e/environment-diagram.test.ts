// The environment diagram in Chromium: the wizard's review step and the environment page draw the
// enabled services with the mermaid library (in its renderer frame, diagram.html) and show the SVG,
// with no Content-Security-Policy violation in the app or the frame (the app's securitypolicyviolation
// events and the console of every frame are watched), and with the app's own policy unchanged.
import t from 'tap'
import type { Page } from 'playwright-core'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

/**
 * Every securitypolicyviolation event of the app's document, reported as it happens. (Playwright's
 * init scripts do not reach the renderer frame's document here: its violations are caught by the
 * console messages of every frame, which Chromium writes for each refused style or script.)
 */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = []
  await page.exposeFunction('__iesViolation', (text: string) => seen.push(text))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __iesViolation?: (text: string) => void }).__iesViolation
      report?.(`${location.pathname}: ${e.violatedDirective} ${e.blockedURI}`)
    })
  })
  return seen
}

/** The diagram's image, once drawn: the SVG it shows and its rendered size. */
async function drawnDiagram(page: Page, testId: string) {
  const figure = page.getByTestId(testId)
  const img = figure.locator('img')
  await img.waitFor({ timeout: 60_000 })
  await page.waitForFunction(
    (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
    await img.elementHandle(),
  )
  const src = (await img.getAttribute('src')) ?? ''
  const svg = decodeURIComponent(src.replace(/^data:image\/svg\+xml;charset=utf-8,/, ''))
  const box = await img.boundingBox()
  return {
    svg,
    alt: (await img.getAttribute('alt')) ?? '',
    width: box?.width ?? 0,
    source: (await figure.locator('pre').textContent()) ?? '',
  }
}

t.test('the review step and the environment page draw the environment without a CSP violation', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const services = {
    vpc: { enabled: true },
    eks: { enabled: true },
    rds: { enabled: true },
    waf: { enabled: true },
    cloudfront: { enabled: true },
  }
  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'pictured', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', services }),
  })
  t.equal(created.status, 201)
  const env = (await created.json()).data as { id: string }

  // The app keeps its policy; only the renderer frame allows inline styles.
  const app = await fetch(`${ies.url}/`)
  const appPolicy = app.headers.get('content-security-policy') ?? ''
  t.match(appPolicy, /style-src 'self'(;|$)/, 'the app allows no inline style')
  t.notMatch(appPolicy, /unsafe-eval/)
  const frame = await fetch(`${ies.url}/diagram.html`)
  t.equal(frame.status, 200)
  const framePolicy = frame.headers.get('content-security-policy') ?? ''
  t.match(framePolicy, /script-src 'self'(;|$)/, 'the frame runs scripts from the server only')
  t.notMatch(framePolicy, /unsafe-eval|connect-src/, 'no eval, and nothing to fetch')
  t.match(framePolicy, /frame-ancestors 'self'/)

  const browser = await launchBrowser(t)
  const { page, problems } = await newPage(await signedInContext(browser, ies.tokenFor('dev')))
  // newPage records the CSP messages Chromium writes to the console, from the app and from every frame.
  const violations = await watchViolations(page)

  // --- the environment page
  await page.goto(`${ies.url}/#/environments/${env.id}`)
  await page.getByRole('heading', { name: 'pictured', exact: true }).waitFor()
  const detail = await drawnDiagram(page, 'environment-diagram')
  t.match(detail.svg, /^<svg[\s\S]*<\/svg>$/, 'an SVG')
  for (const label of ['VPC', 'EKS', 'RDS PostgreSQL', 'WAF', 'CloudFront']) t.match(detail.svg, label, `it draws ${label}`)
  t.notMatch(detail.svg, /Aurora|Lambda/, 'and no service that is off')
  t.match(detail.alt, 'VPC, EKS, RDS PostgreSQL, CloudFront, WAF')
  t.ok(detail.width > 100, `drawn at ${detail.width} px`)
  t.match(detail.source, /^flowchart LR\n {2}subgraph svc_vpc\["VPC"\]/, 'the Mermaid source is the README one')
  t.match(detail.source, 'svc_waf -->|"protects"| svc_cloudfront')
  await screenshot(page, '40-environment-diagram')

  // --- the wizard's review step, editing: a service turned on changes the picture
  await page.goto(`${ies.url}/#/environments/${env.id}/edit`)
  await page.getByRole('button', { name: 'Review' }).click()
  const review = await drawnDiagram(page, 'review-diagram')
  t.equal(review.source, detail.source, 'the review step draws the same picture')
  t.equal(review.svg.length > 0, true)

  // --- a new environment with no service: the picture says so
  await page.goto(`${ies.url}/#/environments/new`)
  await page.getByLabel('Environment name').fill('empty-one')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Review' }).click()
  const empty = await drawnDiagram(page, 'review-diagram')
  t.match(empty.svg, 'No services enabled')
  t.equal(empty.alt, 'Diagram: no services enabled')
  await screenshot(page, '41-review-diagram-empty')

  t.same(violations, [], 'no securitypolicyviolation event in the app')
  t.same(problems.errors, [], 'no page error and no CSP message on the console')
})
