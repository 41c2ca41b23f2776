// Local checks of a tool's function object before it is sent: a name that is a valid identifier,
// parameters of type "object", and `required` naming only declared properties. Pure.

export interface FunctionProblem {
  /** Path of the field, e.g. function.parameters.required[1]. */
  field: string;
  problem: string;
}

/** The names the service accepts: a letter or _, then letters, digits, _ or -, at most 64 characters. */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

export function checkToolFunction(fn: unknown): FunctionProblem[] {
  const problems: FunctionProblem[] = [];
  const add = (field: string, problem: string) => problems.push({ field, problem });
  if (!isObject(fn)) {
    add('function', `must be a JSON object, not ${kind(fn)}`);
    return problems;
  }
  if (fn.name === undefined || fn.name === null || fn.name === '') add('function.name', 'is missing');
  else if (typeof fn.name !== 'string') add('function.name', `must be a string, not ${kind(fn.name)}`);
  else if (!FUNCTION_NAME.test(fn.name)) {
    add('function.name', `"${fn.name}" is not a valid identifier: start with a letter or _, then letters, digits, _ or -, at most 64 characters`);
  }
  if (fn.description !== undefined && typeof fn.description !== 'string') add('function.description', `must be a string, not ${kind(fn.description)}`);
  if (fn.strict !== undefined && typeof fn.strict !== 'boolean') add('function.strict', `must be true or false, not ${kind(fn.strict)}`);
  if (fn.parameters !== undefined) {
    const p = fn.parameters;
    if (!isObject(p)) {
      add('function.parameters', `must be a JSON object, not ${kind(p)}`);
    } else {
      if (p.type !== 'object') add('function.parameters.type', p.type === undefined ? 'is missing: it must be "object"' : `must be "object", not ${JSON.stringify(p.type)}`);
      let declared: string[] = [];
      if (p.properties !== undefined) {
        if (!isObject(p.properties)) add('function.parameters.properties', `must be a JSON object, not ${kind(p.properties)}`);
        else {
          declared = Object.keys(p.properties);
          for (const [name, schema] of Object.entries(p.properties)) {
            if (!isObject(schema)) add(`function.parameters.properties.${name}`, `must be a JSON schema object, not ${kind(schema)}`);
          }
        }
      }
      if (p.required !== undefined) {
        if (!Array.isArray(p.required)) add('function.parameters.required', `must be an array of property names, not ${kind(p.required)}`);
        else {
          p.required.forEach((r, i) => {
            if (typeof r !== 'string') add(`function.parameters.required[${i}]`, `must be a property name (string), not ${kind(r)}`);
            else if (!declared.includes(r)) {
              add(`function.parameters.required[${i}]`, `"${r}" is not declared in function.parameters.properties${declared.length ? ` (declared: ${declared.join(', ')})` : ''}`);
            }
          });
        }
      }
    }
  }
  return problems;
}
