// The environment diagram's renderer: a page of its own, framed (hidden) by the EnvironmentDiagram
// component, that draws Mermaid text with the mermaid library and answers with the SVG. Mermaid
// measures its labels in a live document with a <style> element and style attributes, which the app's
// Content-Security-Policy (style-src 'self') refuses; this page's policy allows inline styles and
// nothing else more (no network, no eval: server/src/core/security-headers.ts, desktop/src/main/main.ts),
// so the app's own policy stays as strict as it is. The app shows the SVG as an image.
import mermaid from 'mermaid'
import { DIAGRAM_MESSAGE, type DiagramReply, type DiagramRequest } from './lib/diagram/messages.ts'

mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'neutral', fontFamily: 'system-ui, sans-serif' })

// The answer goes to the page that framed this one (same origin; in Electron the app:// origin).
const target = location.origin === 'null' ? '*' : location.origin
const reply = (message: DiagramReply) => window.parent.postMessage(message, target)

let rendering = Promise.resolve()
window.addEventListener('message', (event: MessageEvent<DiagramRequest>) => {
  if (event.source !== window.parent || event.data?.type !== DIAGRAM_MESSAGE || typeof event.data.text !== 'string') return
  const { id, text } = event.data
  // One render at a time: mermaid keeps state between renders.
  rendering = rendering.then(async () => {
    try {
      const { svg } = await mermaid.render(`ies-diagram-${id}`, text)
      reply({ type: DIAGRAM_MESSAGE, id, svg })
    } catch (e) {
      reply({ type: DIAGRAM_MESSAGE, id, error: e instanceof Error ? e.message : String(e) })
    }
  })
})
reply({ type: DIAGRAM_MESSAGE, id: 0, ready: true })
