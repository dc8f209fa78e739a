// The wizard's assistant panel: what it sends (only the draft members the assistant reads) and how
// it renders. The click-through (send, apply a suggestion) is covered where the wizard wires it.
import t from 'tap'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { AssistantPanel, assistantContent, assistantDraft } from '../../../../desktop/src/renderer/components/AssistantPanel.tsx'

t.test('assistantDraft keeps only what the assistant reads', async (t) => {
  const draft = {
    name: 'shop',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    labels: { tier: 'production' },
    services: { eks: { enabled: true } },
    gitRepository: { url: 'https://git.example.com/x.git', deployKey: '-----BEGIN OPENSSH PRIVATE KEY-----' },
    cloudCredentialId: '11111111-2222-3333-4444-555555555555',
    helmCharts: { 'argo-cd': { enabled: true, customValues: true, values: 'password: x' } },
  }
  const sent = assistantDraft(draft)
  t.same(sent, {
    name: 'shop',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    labels: { tier: 'production' },
    services: { eks: { enabled: true } },
  })
  sent.services!.eks.enabled = false
  t.equal(draft.services.eks.enabled, true, 'a copy, not the wizard state')
})

t.test('renders an empty conversation with its controls', async (t) => {
  const html = renderToStaticMarkup(
    createElement(AssistantPanel, {
      draft: {},
      onApply: () => {},
      callApi: async () => ({ message: { role: 'assistant' as const, content: '' }, suggestions: [] }),
    }),
  )
  t.match(html, /aria-label="Assistant"/)
  t.match(html, /role="log"/)
  t.match(html, /Check my draft/)
  t.match(html, /<textarea/)
})

t.test('renders the reply line by line: lists, paragraphs, code, a strong lead, never HTML', async (t) => {
  const html = renderToStaticMarkup(
    createElement(
      'div',
      null,
      ...assistantContent(
        '**EKS**: Kubernetes cluster\nTwo things:\n- enable `services.vpc.enabled`\n- set `region`\n\nDone <img src=x onerror=alert(1)>\n- again',
      ),
    ),
  )
  t.equal(
    html,
    '<div><p><strong>EKS</strong>: Kubernetes cluster</p><p>Two things:</p>' +
      '<ul><li>enable <code>services.vpc.enabled</code></li><li>set <code>region</code></li></ul>' +
      '<p>Done &lt;img src=x onerror=alert(1)&gt;</p><ul><li>again</li></ul></div>',
  )
  t.same(assistantContent(''), [], 'an empty reply renders nothing')
  t.match(renderToStaticMarkup(createElement('div', null, ...assistantContent('a *b* **c** d'))), '<p>a *b* **c** d</p>', 'no other markup')
})
