// ESLint rule `ies/max-class-lines`: a class a reader can hold in mind. A class longer than `max`
// lines (everything counted, from `class` to its closing brace) is reported; split it into smaller
// collaborators (a store, a view, a helper module of functions).

const maxClassLines = {
  meta: {
    type: 'suggestion',
    docs: { description: 'No class over `max` lines.' },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: { long: '{{name}} has {{lines}} lines; at most {{max}} (split it into smaller classes or modules).' },
  },
  create(context) {
    const max = context.options[0]?.max ?? 200
    const check = (node) => {
      const lines = node.loc.end.line - node.loc.start.line + 1
      if (lines > max) context.report({ node, messageId: 'long', data: { name: node.id?.name ?? 'A class', lines, max } })
    }
    return { ClassDeclaration: check, ClassExpression: check }
  },
}

export default maxClassLines
