/** The script generator of src/workflow/, unit by unit: lines, names, inferred models, layout. */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportSession } from '../src/workflow/export-session.js';
import type { Action } from '../src/model/records.js';
import { ROOT } from './helpers.js';

const replay = (actions: Action[], infer = true) => exportSession(actions, { asWorkflow: false, inferResponseFormat: infer }).python_script;
const program = (actions: Action[], infer = true) => exportSession(actions, { asWorkflow: true, inferResponseFormat: infer }).python_script;
const scrapeOf = (result: unknown): Action => ({ type: 'scrape', instructions: 'Extract it', response_format: null, result });
/** The class declarations of a replay export: the lines between the imports and the calls. */
const classesOf = (result: unknown) => replay([scrapeOf(result)]).split('\n\n\n').slice(1, -1).join('\n\n\n');

describe('each supported action type is one session call with its parameters as keyword arguments', () => {
  test.each<[Action, string]>([
    [{ type: 'goto', url: 'https://example.com/' }, "session.goto(url='https://example.com/')"],
    [{ type: 'go_back' }, 'session.go_back()'],
    [{ type: 'go_forward' }, 'session.go_forward()'],
    [{ type: 'reload' }, 'session.reload()'],
    [{ type: 'click', selector: '#buy' }, "session.click(selector='#buy')"],
    [{ type: 'fill', selector: '#q', value: 'shoes', press_enter: true }, "session.fill(selector='#q', value='shoes', press_enter=True)"],
    [{ type: 'select_option', selector: '#size', value: '42' }, "session.select_option(selector='#size', value='42')"],
    [{ type: 'press_key', key: 'Enter' }, "session.press_key(key='Enter')"],
    [{ type: 'scroll', down: 500 }, 'session.scroll(down=500)'],
    [{ type: 'wait', time_ms: 1500 }, 'session.wait(time_ms=1500)'],
    [{ type: 'scrape', instructions: 'Get the title' }, "session.scrape(instructions='Get the title')"],
    [{ type: 'scrape', instructions: 'Get it', response_format: { type: 'object' } }, "session.scrape(instructions='Get it', response_format={'type': 'object'})"],
  ])('%j → %s', (action, line) => {
    expect(replay([action], false)).toBe(`${line}\n`);
  });
});

test.each<[string, Action, string]>([
  ['a null parameter is left out', { type: 'click', selector: '#a', button: null }, "session.click(selector='#a')"],
  ['nested values are Python literals', { type: 'fill', selector: '#a', value: { on: true, off: false, none: null, n: [1, 2.5, 1e-7] } }, "session.fill(selector='#a', value={'on': True, 'off': False, 'none': None, 'n': [1, 2.5, 1e-07]})"],
  ['a keyword as parameter name goes through **{…}', { type: 'goto', url: 'u', from: 'x' }, "session.goto(url='u', **{'from': 'x'})"],
  ['odd parameter names go through **{…}, in their order', { type: 'goto', 'data-id': 1, url: 'u', 'é': 2 }, "session.goto(url='u', **{'data-id': 1, 'é': 2})"],
  ['a result sample is never a parameter', { type: 'scrape', instructions: 'i', result: { a: 1 } }, "session.scrape(instructions='i')"],
])('%s', (_, action, line) => {
  expect(replay([action], false)).toBe(`${line}\n`);
});

describe('an action type the SDK has no method for is a comment, not an error', () => {
  test.each(['hover', 'constructor', '__proto__', 'toString', '', 'goto\nimport os', 'GOTO'])('type %j', (type) => {
    const exported = exportSession([{ type, selector: "it's" }], { asWorkflow: false, inferResponseFormat: true });
    expect(exported.python_script).toBe(`# unsupported action: {'type': ${JSON.stringify(type).replace(/^"|"$/g, "'")}, 'selector': "it's"}\n`);
    expect(exported.json_actions).toEqual([{ type, selector: "it's" }]);
  });
});

test('the recorded session of ex-076 gives the recorded program byte for byte', () => {
  const reference = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'fastapi-reference.json'), 'utf8'));
  const actions = reference.sessions.find((s: any) => s.id === 'sess_demo').actions;
  expect(program(actions)).toBe(`from service_sdk import Client

client = Client()


def run():
    session = client.sessions.create()
    session.goto(url='https://example.com/login')
    session.fill(selector='#email', value='dev@example.com')
    session.click(selector='button[type=submit]')
    session.scrape(instructions='Extract the account balance', response_format={'type': 'object', 'properties': {'result': {'type': 'string'}}})


if __name__ == "__main__":
    run()
`);
});

describe('field names: keys become snake_case identifiers, with Field(alias=…) when they differ', () => {
  test.each([
    ['name', "    name: str"],
    ['nextPage', "    next_page: str = Field(alias='nextPage')"],
    ['HTMLTitle', "    html_title: str = Field(alias='HTMLTitle')"],
    ['first name', "    first_name: str = Field(alias='first name')"],
    ['from', "    from_: str = Field(alias='from')"],
    ['class', "    class_: str = Field(alias='class')"],
    ['None', "    none: str = Field(alias='None')"],
    ['match', "    match: str"],
    ['2fa', "    field_2fa: str = Field(alias='2fa')"],
    ['_id', "    id: str = Field(alias='_id')"],
    ['$ref', "    ref: str = Field(alias='$ref')"],
    ['café', "    cafe: str = Field(alias='café')"],
    ['日本', "    field: str = Field(alias='日本')"],
    ['', "    field: str = Field(alias='')"],
    ['str', "    str_: str = Field(alias='str')"],
    ['json', "    json_: str = Field(alias='json')"],
    ['model_config', "    model_config_: str = Field(alias='model_config')"],
    ["it's \"quoted\"\n", "    it_s_quoted: str = Field(alias='it\\'s \"quoted\"\\n')"],
  ])('%j', (key, line) => {
    expect(classesOf({ [key]: 'x' })).toBe(`class ScrapeResult(BaseModel):\n${line}`);
  });

  test('keys that escape to the same name are numbered in key order', () => {
    expect(classesOf({ first_name: 'a', firstName: 'b', 'first-name': 'c' })).toBe(
      [
        'class ScrapeResult(BaseModel):',
        '    first_name: str',
        "    first_name_2: str = Field(alias='firstName')",
        "    first_name_3: str = Field(alias='first-name')",
      ].join('\n'),
    );
  });
});

describe('inferred types', () => {
  test.each<[string, unknown, string]>([
    ['JSON scalars', { s: 'a', i: 1, f: 1.5, b: true }, 'class ScrapeResult(BaseModel):\n    s: str\n    i: int\n    f: float\n    b: bool'],
    ['null is an optional field', { gone: null }, 'class ScrapeResult(BaseModel):\n    gone: Any | None = None'],
    ['an empty list is a list of anything', { tags: [] }, 'class ScrapeResult(BaseModel):\n    tags: list[Any]'],
    ['a list of scalars', { tags: ['a', 'b'] }, 'class ScrapeResult(BaseModel):\n    tags: list[str]'],
    ['integers and floats in one list are floats', { xs: [1, 2.5] }, 'class ScrapeResult(BaseModel):\n    xs: list[float]'],
    ['null among values makes the items optional', { xs: [1, null] }, 'class ScrapeResult(BaseModel):\n    xs: list[int | None]'],
    ['values with nothing in common are Any', { xs: ['a', 1] }, 'class ScrapeResult(BaseModel):\n    xs: list[Any]'],
    ['lists of lists', { grid: [[1], [2, 3]] }, 'class ScrapeResult(BaseModel):\n    grid: list[list[int]]'],
    ['an integer too large to be exact here is a float', { big: 2 ** 60 }, 'class ScrapeResult(BaseModel):\n    big: float'],
    ['an empty object is a class without fields', { meta: {} }, 'class Meta(BaseModel):\n    pass\n\n\nclass ScrapeResult(BaseModel):\n    meta: Meta'],
    [
      'a nested object is a class named after its key, declared first',
      { billing_address: { city: 'Paris' } },
      'class BillingAddress(BaseModel):\n    city: str\n\n\nclass ScrapeResult(BaseModel):\n    billing_address: BillingAddress',
    ],
    [
      'a list of objects is list[<Key>Item]; a key missing from some items is optional',
      { rows: [{ a: 1, b: 'x' }, { a: 2 }] },
      'class RowsItem(BaseModel):\n    a: int\n    b: str | None = None\n\n\nclass ScrapeResult(BaseModel):\n    rows: list[RowsItem]',
    ],
    [
      'class names never repeat, nor shadow the imports or a keyword',
      { address: { address: { x: 1 } }, base_model: {}, none: {}, client: {}, any: {} },
      [
        'class Address2(BaseModel):\n    x: int',
        'class Address(BaseModel):\n    address: Address2',
        'class BaseModel2(BaseModel):\n    pass',
        'class None2(BaseModel):\n    pass',
        'class Client2(BaseModel):\n    pass',
        'class Any2(BaseModel):\n    pass',
        'class ScrapeResult(BaseModel):\n    address: Address\n    base_model: BaseModel2\n    none: None2\n    client: Client2\n    any: Any2',
      ].join('\n\n\n'),
    ],
    ['a result that is not an object is wrapped in `result`', ['a', 'b'], 'class ScrapeResult(BaseModel):\n    result: list[str]'],
  ])('%s', (_, sample, classes) => {
    expect(classesOf(sample)).toBe(classes);
  });

  test('the JSON Schema in json_actions matches the classes', () => {
    const [action] = exportSession([scrapeOf({ rows: [{ a: 1, 'b-c': 'x' }, { a: 2.5 }], note: null })], { asWorkflow: false, inferResponseFormat: true }).json_actions;
    expect(action.response_format).toEqual({
      type: 'object',
      title: 'ScrapeResult',
      properties: {
        rows: {
          type: 'array',
          items: {
            type: 'object',
            title: 'RowsItem',
            properties: { a: { type: 'number' }, 'b-c': { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } },
            required: ['a'],
          },
        },
        note: { anyOf: [{}, { type: 'null' }], default: null },
      },
      required: ['rows'],
    });
  });

  test('a key `__proto__` stays a property of the schema', () => {
    const [action] = exportSession([scrapeOf(JSON.parse('{"__proto__": 1}'))], { asWorkflow: false, inferResponseFormat: true }).json_actions;
    expect(Object.keys((action.response_format as any).properties)).toEqual(['__proto__']);
  });
});

describe('which scrapes get a response_format', () => {
  test.each<[string, Action, unknown]>([
    ['no instructions', { type: 'scrape', response_format: null, result: { a: 1 } }, null],
    ['empty instructions', { type: 'scrape', instructions: '', response_format: null }, null],
    ['its own response_format', { type: 'scrape', instructions: 'i', response_format: { type: 'string' }, result: { a: 1 } }, { type: 'string' }],
    ['no sample', { type: 'scrape', instructions: 'i', response_format: null }, { type: 'object', properties: { result: { type: 'string' } } }],
    ['a null sample', { type: 'scrape', instructions: 'i', response_format: null, result: null }, { type: 'object', properties: { result: { type: 'string' } } }],
    ['no response_format key at all', { type: 'scrape', instructions: 'i' }, { type: 'object', properties: { result: { type: 'string' } } }],
  ])('%s', (_, action, responseFormat) => {
    const [exported] = exportSession([action], { asWorkflow: false, inferResponseFormat: true }).json_actions;
    expect(exported.response_format ?? null).toEqual(responseFormat);
  });
});

describe('run() returns the last scrape’s result only when an inferred model types it', () => {
  const typed = scrapeOf({ a: 1 });
  const untyped: Action = { type: 'scrape', instructions: 'Other', response_format: null };
  const click: Action = { type: 'click', selector: '#next' };
  test.each<[string, Action[], boolean]>([
    ['the last scrape is typed by a model', [untyped, typed], true],
    ['a click follows the typed scrape', [typed, click], true],
    ['the last scrape has the fallback dict (as ex-076)', [typed, untyped], false],
    ['no scrape', [click], false],
  ])('%s', (_, actions, returns) => {
    const script = program(actions);
    expect(script.includes('    result = session.scrape(')).toBe(returns);
    expect(script.includes('    return result\n')).toBe(returns);
    expect(program(actions, false)).not.toContain('result = ');
  });
});

describe('layout', () => {
  test('without a model, no __future__ or pydantic import; with one, both, and typing only for Any', () => {
    expect(program([{ type: 'goto', url: 'u' }])).not.toMatch(/__future__|pydantic|typing/);
    expect(program([scrapeOf({ a: 1 })]).split('\n\n\n')[0]).toBe('from __future__ import annotations\n\nfrom pydantic import BaseModel\nfrom service_sdk import Client');
    expect(program([scrapeOf({ a: null, B: 1 })]).split('\n\n\n')[0]).toBe(
      'from __future__ import annotations\n\nfrom typing import Any\n\nfrom pydantic import BaseModel, Field\nfrom service_sdk import Client',
    );
  });

  test('the replay lines of a session without actions are empty; its program still opens a session', () => {
    expect(replay([])).toBe('');
    expect(program([])).toContain('def run():\n    session = client.sessions.create()\n\n\nif __name__');
  });

  test('the export is deterministic and leaves the recorded actions as they were', () => {
    const actions: Action[] = [{ type: 'goto', url: 'u' }, scrapeOf({ rows: [{ a: 1 }] })];
    const before = structuredClone(actions);
    const first = exportSession(actions, { asWorkflow: true, inferResponseFormat: true });
    expect(exportSession(actions, { asWorkflow: true, inferResponseFormat: true })).toEqual(first);
    expect(actions).toEqual(before);
  });
});
