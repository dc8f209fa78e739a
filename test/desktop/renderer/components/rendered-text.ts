/** A component's static markup as the words a reader sees: tags dropped, spaces collapsed, no space before punctuation. */
export const renderedText = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([.,:)])/g, '$1')
    .trim()
