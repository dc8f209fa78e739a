// Just enough HTML form reading for scripted sign-in: the forms of a page, their action, their
// fields with values, and their submit buttons. Works on this provider's pages and on Keycloak's.

export interface HtmlForm {
  id: string | undefined
  action: string | undefined
  method: string
  /** Named inputs (hidden, text, password, ...) with their current value. */
  fields: Array<{ name: string; type: string; value: string }>
  /** Named submit buttons (`<button type=submit>` or `<input type=submit>`). */
  buttons: Array<{ name: string; value: string }>
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[entity.toLowerCase()] ?? whole
  })
}

export function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  const body = tag.replace(/^<\s*[\w-]+/, '').replace(/\/?>$/, '')
  for (const match of body.matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    out[match[1]!.toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '')
  }
  return out
}

export function parseForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = []
  for (const match of html.matchAll(/<form\b[^>]*>[\s\S]*?<\/form\s*>/gi)) {
    const whole = match[0]
    const open = attributes(/^<form\b[^>]*>/i.exec(whole)![0])
    const form: HtmlForm = { id: open.id, action: open.action, method: (open.method ?? 'get').toLowerCase(), fields: [], buttons: [] }
    for (const tag of whole.matchAll(/<(input|button)\b[^>]*>/gi)) {
      const attrs = attributes(tag[0])
      const kind = tag[1]!.toLowerCase()
      const type = (attrs.type ?? (kind === 'button' ? 'submit' : 'text')).toLowerCase()
      if (type === 'submit') {
        if (attrs.name) form.buttons.push({ name: attrs.name, value: attrs.value ?? '' })
      } else if (attrs.name && type !== 'button' && type !== 'reset' && type !== 'image') {
        if ((type === 'checkbox' || type === 'radio') && !('checked' in attrs)) continue
        form.fields.push({ name: attrs.name, type, value: attrs.value ?? '' })
      }
    }
    forms.push(form)
  }
  return forms
}
