/**
 * The ajv instances: the ajv class of each dialect, one shared instance per dialect (created on
 * first use, with `ajv-formats` and `AJV_OPTIONS`), private instances for schemas that declare
 * `$id`, the tolerant regular-expression engine, and the meta-schema documents that meta-schema
 * error paths resolve in.
 */
import AjvDraft07Import from 'ajv'
import Ajv2019Import from 'ajv/dist/2019.js'
import Ajv2020Import from 'ajv/dist/2020.js'
import type AjvCore from 'ajv/dist/core.js'
import type { Options } from 'ajv'
import addFormatsImport from 'ajv-formats'
import type { SchemaDialect } from './types'

type AjvClass = new (options: Options) => AjvCore
type FormatsPlugin = (ajv: AjvCore) => unknown

/** NodeNext/ESM interop: a CommonJS default import may be the function or the module object. */
function interopDefault<T>(mod: T | { readonly default: T }): T {
  if (typeof mod === 'function') return mod as T
  return (mod as { readonly default: T }).default
}

const AJV_CLASSES: Readonly<Record<SchemaDialect, AjvClass>> = {
  'draft-07': interopDefault(AjvDraft07Import as unknown as AjvClass),
  '2019-09': interopDefault(Ajv2019Import as unknown as AjvClass),
  '2020-12': interopDefault(Ajv2020Import as unknown as AjvClass),
}
const addFormats = interopDefault(addFormatsImport as unknown as FormatsPlugin)

/**
 * The regular-expression engine handed to ajv: ECMA-262 with the `u` flag (ajv's default), and
 * without it for foreign patterns that only compile in legacy mode (e.g. `[\w\-]`).
 */
export function tolerantRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags)
  } catch (error) {
    if (!flags.includes('u')) throw error
    return new RegExp(pattern, flags.replace('u', ''))
  }
}
tolerantRegExp.code = 'tolerantRegExp'

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  logger: false,
  code: { regExp: tolerantRegExp },
}

export function createAjv(dialect: SchemaDialect, overrides: Options = {}): AjvCore {
  const ajv = new AJV_CLASSES[dialect]({ ...AJV_OPTIONS, ...overrides })
  addFormats(ajv)
  return ajv
}

const sharedAjv = new Map<SchemaDialect, AjvCore>()
export function ajvFor(dialect: SchemaDialect): AjvCore {
  let ajv = sharedAjv.get(dialect)
  if (ajv === undefined) {
    ajv = createAjv(dialect)
    sharedAjv.set(dialect, ajv)
  }
  return ajv
}

const META_SCHEMA_URI: Readonly<Record<SchemaDialect, string>> = {
  'draft-07': 'http://json-schema.org/draft-07/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

const metaRoots = new Map<SchemaDialect, readonly unknown[]>()
/**
 * The documents meta-schema error paths resolve in: the dialect's meta-schema first, then its
 * vocabulary meta-schemas (2019-09 and 2020-12 split the meta-schema by vocabulary).
 */
export function metaSchemaRoots(dialect: SchemaDialect): readonly unknown[] {
  let roots = metaRoots.get(dialect)
  if (roots === undefined) {
    const ajv = ajvFor(dialect)
    const main = ajv.getSchema(META_SCHEMA_URI[dialect])?.schema
    const all = Object.values(ajv.schemas).map((env) => env?.schema)
    roots = [main, ...all.filter((schema) => schema !== main && schema !== undefined)]
    metaRoots.set(dialect, roots)
  }
  return roots
}
