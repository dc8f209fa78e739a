// The provider's HTML pages: plain forms that a person can use and a script can fill in.
// No external assets; every value is escaped.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:22rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem}.error{color:#b00020}
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`
}

export function loginPage(opts: { action: string; realm: string; clientId: string; username?: string; error?: string }): string {
  return page(
    `Sign in to ${opts.realm}`,
    `<p>Application: ${escapeHtml(opts.clientId)}</p>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form id="kc-form-login" method="post" action="${escapeHtml(opts.action)}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autofocus required value="${escapeHtml(opts.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" name="login" value="login">Sign in</button>
</form>`,
  )
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${escapeHtml(message)}</p>`)
}

/** oidc-provider hands over its own `<form>` (hidden fields included); we add the visible parts. */
export function deviceCodeInputPage(form: string, error: string | undefined): string {
  const input = form.replace('</form>', '')
  return page(
    'Device sign-in',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '<p>Enter the code shown on your device.</p>'}
${input}
<button type="submit">Continue</button>
</form>`,
  )
}

export function deviceConfirmPage(form: string, clientId: string, userCode: string): string {
  const fields = form.replace('</form>', '')
  return page(
    'Confirm device',
    `<p>Application <strong>${escapeHtml(clientId)}</strong> asks to sign in on a device showing the code
<code>${escapeHtml(userCode)}</code>.</p>
${fields}
<button type="submit">Continue</button>
<button type="submit" name="abort" value="yes">Abort</button>
</form>`,
  )
}
