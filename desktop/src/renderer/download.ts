// Saving a file the app made or fetched: the system save dialog in Electron, a download in a browser.
export async function saveBlob(name: string, blob: Blob) {
  if (window.ies) {
    await window.ies.saveFile(name, new Uint8Array(await blob.arrayBuffer()))
    return
  }
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
