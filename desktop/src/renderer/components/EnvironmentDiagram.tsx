// The picture of an environment: the same Mermaid text as the generated README (processor-lib's
// contract/diagram.ts, from the catalog and the services' values), drawn by the mermaid library in a
// hidden renderer frame (diagram-frame.ts, which says why) and shown here as an image.
import { useEffect, useMemo, useRef, useState } from 'react'
import { drawnServices, environmentDiagram, type DiagramService } from '@ies/processor-lib/contract/diagram'
import { DIAGRAM_MESSAGE, type DiagramReply, type DiagramRequest } from '../lib/diagram/messages.ts'

type Drawn = { svg: string } | { error: string } | null

let nextId = 1

export function EnvironmentDiagram(p: { services: readonly DiagramService[]; values: Record<string, unknown>; testId?: string }) {
  const text = useMemo(() => environmentDiagram(p.services, { services: p.values }), [p.services, p.values])
  const frame = useRef<HTMLIFrameElement>(null)
  const [ready, setReady] = useState(false)
  const [drawn, setDrawn] = useState<Drawn>(null)
  const asked = useRef(0)

  useEffect(() => {
    const onMessage = (event: MessageEvent<DiagramReply>) => {
      if (event.source !== frame.current?.contentWindow || event.data?.type !== DIAGRAM_MESSAGE) return
      const m = event.data
      if (m.ready) setReady(true)
      else if (m.id === asked.current) setDrawn(m.svg !== undefined ? { svg: m.svg } : { error: m.error ?? 'unknown error' })
    }
    window.addEventListener('message', onMessage)
    return () => window.removeEventListener('message', onMessage)
  }, [])

  useEffect(() => {
    const target = frame.current?.contentWindow
    if (!ready || !target) return
    const request: DiagramRequest = { type: DIAGRAM_MESSAGE, id: nextId++, text }
    asked.current = request.id
    target.postMessage(request, location.origin === 'null' ? '*' : location.origin)
  }, [ready, text])

  const names = drawnServices(p.services, { services: p.values }).map((s) => s.label)
  const alt = names.length ? `Diagram of the enabled services: ${names.join(', ')}` : 'Diagram: no services enabled'
  return (
    <figure className="env-diagram" data-testid={p.testId ?? 'environment-diagram'}>
      {drawn && 'svg' in drawn ? (
        <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(drawn.svg)}`} alt={alt} />
      ) : drawn ? (
        <p className="muted small" role="status">
          The diagram could not be drawn: {drawn.error}
        </p>
      ) : (
        <p className="muted small">Drawing the diagram…</p>
      )}
      <figcaption className="muted small">
        The same picture is in the generated repository&apos;s README.{' '}
        <details>
          <summary>Mermaid source</summary>
          <pre className="mono">{text}</pre>
        </details>
      </figcaption>
      <iframe ref={frame} className="env-diagram-renderer" src="diagram.html" title="Diagram renderer" aria-hidden="true" tabIndex={-1} />
    </figure>
  )
}
