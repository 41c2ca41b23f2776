import { describe, expect, it } from 'vitest';
import { checkToolFunction } from '../../../src/commands/tools/checkFunction.js';

const good = {
  name: 'lookup_appointment',
  description: 'Looks up the next appointment',
  strict: false,
  parameters: { type: 'object', properties: { patientId: { type: 'string' }, day: { type: 'string' } }, required: ['patientId'] },
};

describe('checkToolFunction', () => {
  it('accepts a valid function, and one without parameters', () => {
    expect(checkToolFunction(good)).toEqual([]);
    expect(checkToolFunction({ name: '_x-1' })).toEqual([]);
    expect(checkToolFunction({ name: 'a', parameters: { type: 'object' } })).toEqual([]);
  });

  it('needs a name that is a valid identifier', () => {
    expect(checkToolFunction({ parameters: { type: 'object' } })).toEqual([{ field: 'function.name', problem: 'is missing' }]);
    expect(checkToolFunction({ name: 3 })[0]!.problem).toMatch(/must be a string/);
    for (const bad of ['1abc', 'has space', 'dot.name', 'x'.repeat(65), 'ünï']) {
      const p = checkToolFunction({ name: bad });
      expect(p, bad).toHaveLength(1);
      expect(p[0]!.field).toBe('function.name');
      expect(p[0]!.problem).toMatch(/not a valid identifier/);
    }
  });

  it('parameters.type must be "object"', () => {
    expect(checkToolFunction({ name: 'a', parameters: { type: 'array' } })).toEqual([
      { field: 'function.parameters.type', problem: 'must be "object", not "array"' },
    ]);
    expect(checkToolFunction({ name: 'a', parameters: { properties: {} } })[0]!.field).toBe('function.parameters.type');
    expect(checkToolFunction({ name: 'a', parameters: [] })[0]!.problem).toMatch(/not an array/);
  });

  it('required may name only declared properties; every problem is listed', () => {
    const p = checkToolFunction({ name: '9', parameters: { type: 'object', properties: { a: {} }, required: ['a', 'b', 7] } });
    expect(p.map((x) => x.field)).toEqual(['function.name', 'function.parameters.required[1]', 'function.parameters.required[2]']);
    expect(p[1]!.problem).toBe('"b" is not declared in function.parameters.properties (declared: a)');
    expect(checkToolFunction({ name: 'a', parameters: { type: 'object', required: 'a' } })[0]!.field).toBe('function.parameters.required');
  });

  it('a function that is not an object', () => {
    expect(checkToolFunction([])).toEqual([{ field: 'function', problem: 'must be a JSON object, not an array' }]);
    expect(checkToolFunction(null)).toEqual([{ field: 'function', problem: 'must be a JSON object, not null' }]);
  });
});
