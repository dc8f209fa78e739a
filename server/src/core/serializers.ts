// The response serializers (fast-json-stringify, Fastify's own builder), one per response schema.
// Fastify asks for a serializer for every route, method and status code (a GET's HEAD too), while
// the routes share a few dozen schema objects (the error envelope answers most status codes of
// every route): building each ask anew was most of the server's start. The builder here keeps what
// it built for a schema object, with the same external schemas and options, for the process, so a
// schema is built once however many routes, apps or encapsulated contexts use it. A serializer is a
// pure function of its schema and options, so sharing it changes no answer.
import { SerializerSelector, type SerializerCompiler, type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

const build = SerializerSelector()
const built = new WeakMap<object, Map<string, ReturnType<SerializerCompiler>>>()

/** Fastify's serializer builder (`schemaController.compilersFactory.buildSerializer`), keeping each schema's serializer. */
export const buildSharedSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = build(externalSchemas, options)
  const key = JSON.stringify([externalSchemas ?? null, options ?? null])
  return (route) => {
    const schema = route.schema
    if (typeof schema !== 'object' || schema === null) return compile(route)
    let forSchema = built.get(schema)
    if (!forSchema) built.set(schema, (forSchema = new Map()))
    let serializer = forSchema.get(key)
    if (!serializer) forSchema.set(key, (serializer = compile(route)))
    return serializer
  }
}
