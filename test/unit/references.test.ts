// The reference resolver (workflows/engine/references.ts) alone: whole
// references keep their type, references in text become text, names and the
// start alias resolve, paths step into arrays, and every missing thing is a
// Failure naming it, while markup such as <br> stays text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Failure } from '../../server/ai/failures.ts';
import { blockIndex, resolveConfig } from '../../server/ai/workflows/engine/references.ts';
import type { Block } from '../../server/ai/workflows/engine/types.ts';

const blocks: Block[] = [
  { id: 'start', type: 'starter', config: {} },
  { id: 'fetch', type: 'general_api', config: { name: 'lookup' } },
  { id: 'later', type: 'response', config: {} },
];
const scope = {
  variables: { city: 'Oslo', tags: ['a', 'b'] },
  outputs: new Map<string, unknown>([['fetch', { status: 200, body: { items: [{ name: 'first' }, { name: 'second' }] } }]]),
  blocks: blockIndex(blocks),
};
const resolve = (config: Record<string, unknown>) => resolveConfig(config, scope);

describe('references', () => {
  it('keeps a whole reference as its value, of its type', () => {
    assert.deepEqual(resolve({ v: '<fetch.body.items>' }).v, [{ name: 'first' }, { name: 'second' }]);
    assert.equal(resolve({ v: '<fetch.status>' }).v, 200);
    assert.deepEqual(resolve({ v: '<fetch>' }).v, scope.outputs.get('fetch'));
  });

  it('writes references inside text as text, objects as JSON', () => {
    assert.equal(resolve({ v: 'City: <variables.city>, tags <variables.tags>' }).v, 'City: Oslo, tags ["a","b"]');
  });

  it('resolves a block by its config name, the start alias and array indexes', () => {
    assert.equal(resolve({ v: '<lookup.body.items.1.name>' }).v, 'second');
    assert.equal(resolve({ v: '<start.city>' }).v, 'Oslo');
  });

  it('resolves inside nested objects and arrays, leaving the config unchanged', () => {
    const config = { headers: { 'x-city': '<variables.city>' }, list: ['<fetch.status>', 3] };
    assert.deepEqual(resolve(config), { headers: { 'x-city': 'Oslo' }, list: [200, 3] });
    assert.equal(config.headers['x-city'], '<variables.city>');
  });

  it('leaves a bare word naming no block as text (markup survives)', () => {
    assert.equal(resolve({ v: 'line<br>next' }).v, 'line<br>next');
    assert.equal(resolve({ v: '<br>' }).v, '<br>');
  });

  it('fails, naming what is missing', () => {
    const fails = (config: Record<string, unknown>, message: RegExp) => assert.throws(() => resolve(config), (e: Error) => e instanceof Failure && message.test(e.message));
    fails({ v: '<nobody.x>' }, /Reference <nobody\.x>: no block or variable named "nobody"/);
    fails({ v: '<later.x>' }, /block "later" has not run before this block/);
    fails({ v: '<fetch.body.missing>' }, /body\.missing is not in the output of "fetch"/);
    fails({ v: '<variables.country>' }, /country is not in the run's variables/);
    fails({ v: '<fetch.body.items.7>' }, /body\.items\.7 is not in the output/);
  });
});
