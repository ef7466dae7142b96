/**
 * The parity table (issue #4): request → exact status and exact body text, across all 15
 * operations and every row of the error catalogue (CONTRACT §4, §5). Expected bodies are written
 * out literally from the contract and Pydantic's wording, never produced by the code under test.
 * Recorded answers of the real service live in contract-examples.test.ts; these add to them.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { MockServer } from '../src/server.js';
import { rawRequest, testServer } from './helpers.js';

// Literal builders: they only join the literal texts each case gives.
const err = (type: string, loc: string, msg: string, input: string, ctx?: string) =>
  `{"type":"${type}","loc":${loc},"msg":"${msg}","input":${input}${ctx ? `,"ctx":${ctx}` : ''}}`;
const detail = (...errors: string[]) => `{"detail":[${errors.join(',')}]}`;
const plain = (text: string) => `{"detail":"${text}"}`;

const INT = 'Input should be a valid integer, unable to parse string as an integer';
const BOOLP = 'Input should be a valid boolean, unable to interpret input';
const BOOLT = 'Input should be a valid boolean';
const STR = 'Input should be a valid string';
const LIST = 'Input should be a valid list';
const MODEL = 'Input should be a valid dictionary or object to extract fields from';
const REQ = 'Field required';
const SRC = `Input should be 'user_upload' or 'session_download'`;
const SRC_CTX = `{"expected":"'user_upload' or 'session_download'"}`;
const NS = `Input should be 'llm_provider' or 'function_env'`;
const NS_CTX = `{"expected":"'llm_provider' or 'function_env'"}`;
const PROV = `Input should be 'gmail' or 'microsoft_outlook'`;
const PROV_CTX = `{"expected":"'gmail' or 'microsoft_outlook'"}`;
const jsonInvalid = (pos: number, error: string) => detail(err('json_invalid', `["body",${pos}]`, 'JSON decode error', '{}', `{"error":"${error}"}`));

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  status: number;
  expected: string;
}

const AUTH = { Authorization: 'Bearer parity-token' };
const JSON_CT = { ...AUTH, 'Content-Type': 'application/json' };
const FORM_CT = { 'Content-Type': 'application/x-www-form-urlencoded' };
const get = (path: string, status: number, expected: string, name = `GET ${path}`): Case => ({ name, method: 'GET', path, headers: AUTH, status, expected });
const json = (method: string, path: string, body: string, status: number, expected: string, name = `${method} ${path} ${body}`): Case => ({ name, method, path, headers: JSON_CT, body, status, expected });
const files = '/sessions/sess_demo/files';
const code = '/sessions/sess_demo/workflow/code';

const LIST_FILES: Case[] = [
  get(`${files}?limit=0`, 422, detail(err('greater_than_equal', '["query","limit"]', 'Input should be greater than or equal to 1', '"0"', '{"ge":1}'))),
  get(`${files}?limit=1001`, 422, detail(err('less_than_equal', '["query","limit"]', 'Input should be less than or equal to 1000', '"1001"', '{"le":1000}'))),
  get(`${files}?limit=99999999999999999999999`, 422, detail(err('less_than_equal', '["query","limit"]', 'Input should be less than or equal to 1000', '"99999999999999999999999"', '{"le":1000}'))),
  get(`${files}?limit=-99999999999999999999999`, 422, detail(err('greater_than_equal', '["query","limit"]', 'Input should be greater than or equal to 1', '"-99999999999999999999999"', '{"ge":1}'))),
  get(`${files}?limit=`, 422, detail(err('int_parsing', '["query","limit"]', INT, '""'))),
  get(`${files}?limit`, 422, detail(err('int_parsing', '["query","limit"]', INT, '""'))),
  get(`${files}?limit=abc`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"abc"'))),
  get(`${files}?limit=5.`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"5."'))),
  get(`${files}?limit=.5`, 422, detail(err('int_parsing', '["query","limit"]', INT, '".5"'))),
  get(`${files}?limit=0x10`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"0x10"'))),
  get(`${files}?limit=1__0`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"1__0"'))),
  get(`${files}?limit=_1`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"_1"'))),
  get(`${files}?limit=%D9%A1`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"١"'))),
  get(`${files}?limit=%EF%BB%BF5`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"\ufeff5"'))),
  get(`${files}?limit=1+2`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"1 2"'))),
  get(`${files}?limit=%2B-1`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"+-1"'))),
  get(`${files}?limit=1.0_0`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"1.0_0"'))),
  get(`${files}?limit=%zz`, 422, detail(err('int_parsing', '["query","limit"]', INT, '"%zz"'))),
  get(`${files}?offset=-1`, 422, detail(err('greater_than_equal', '["query","offset"]', 'Input should be greater than or equal to 0', '"-1"', '{"ge":0}'))),
  get(`${files}?offset=x`, 422, detail(err('int_parsing', '["query","offset"]', INT, '"x"'))),
  get(`${files}?source=`, 422, detail(err('enum', '["query","source"]', SRC, '""', SRC_CTX))),
  get(`${files}?source=upload`, 422, detail(err('enum', '["query","source"]', SRC, '"upload"', SRC_CTX))),
  get(`${files}?source=+user_upload`, 422, detail(err('enum', '["query","source"]', SRC, '" user_upload"', SRC_CTX))),
  get(`${files}?source=null`, 422, detail(err('enum', '["query","source"]', SRC, '"null"', SRC_CTX))),
  get(`${files}?source=%C3%A9`, 422, detail(err('enum', '["query","source"]', SRC, '"é"', SRC_CTX))),
  get(`${files}?source=a%22b%5Cc`, 422, detail(err('enum', '["query","source"]', SRC, '"a\\"b\\\\c"', SRC_CTX))),
  get(`${files}?source=x&limit=x&offset=x`, 422, detail(err('enum', '["query","source"]', SRC, '"x"', SRC_CTX), err('int_parsing', '["query","limit"]', INT, '"x"'), err('int_parsing', '["query","offset"]', INT, '"x"'))),
  get(`${files}?limit=0&source=user_upload&limit=5`, 200, '', 'a repeated limit: the last (valid) one wins'),
  get('/sessions/sess_nope/files?limit=0', 422, detail(err('greater_than_equal', '["query","limit"]', 'Input should be greater than or equal to 1', '"0"', '{"ge":1}')), 'validation comes before the 404'),
  get('/sessions/sess_nope/files', 404, plain('Session not found')),
  get(`${files}?limit=1000&offset=0&unknown=1`, 200, '', 'unknown query parameters are ignored'),
];

const SCRIPT: Case[] = [
  ...['yes', 'YES', 'on', 'On', 't', 'T', 'y', '1', 'true', 'True', 'no', 'OFF', 'f', 'n', '0', 'false', 'FALSE'].map((v) => get(`${code}?as_workflow=${v}`, 200, '', `as_workflow=${v} is a boolean`)),
  ...['', 'yes%20', '%20yes', '1.0', '2', '-1', 'truee', 'nope', 'null', '%C4%B0'].map((v) =>
    get(`${code}?infer_response_format=${v}`, 422, detail(err('bool_parsing', '["query","infer_response_format"]', BOOLP, JSON.stringify(decodeURIComponent(v))))),
  ),
  get(`${code}?as_workflow=x&infer_response_format=y2`, 422, detail(err('bool_parsing', '["query","as_workflow"]', BOOLP, '"x"'), err('bool_parsing', '["query","infer_response_format"]', BOOLP, '"y2"'))),
  get('/sessions/sess_nope/workflow/code', 404, plain('Session not found')),
  get('/sessions/sess_nope/workflow/code?as_workflow=maybe', 422, detail(err('bool_parsing', '["query","as_workflow"]', BOOLP, '"maybe"'))),
];

const SECRETS: Case[] = [
  json('POST', '/secrets', '{}', 422, detail(err('missing', '["body","name"]', REQ, '{}'), err('missing', '["body","value"]', REQ, '{}'))),
  json('POST', '/secrets', '{"name": "K"}', 422, detail(err('missing', '["body","value"]', REQ, '{"name":"K"}'))),
  json('POST', '/secrets', '{"name": "", "value": "v"}', 422, detail(err('string_too_short', '["body","name"]', 'String should have at least 1 character', '""', '{"min_length":1}'))),
  json('POST', '/secrets', `{"name": "${'x'.repeat(129)}", "value": "v"}`, 422, detail(err('string_too_long', '["body","name"]', 'String should have at most 128 characters', `"${'x'.repeat(129)}"`, '{"max_length":128}'))),
  json('POST', '/secrets', `{"name": "${'é'.repeat(129)}", "value": "v"}`, 422, detail(err('string_too_long', '["body","name"]', 'String should have at most 128 characters', `"${'é'.repeat(129)}"`, '{"max_length":128}'))),
  json('POST', '/secrets', `{"name": "${'😀'.repeat(129)}", "value": "v"}`, 422, detail(err('string_too_long', '["body","name"]', 'String should have at most 128 characters', `"${'😀'.repeat(129)}"`, '{"max_length":128}'))),
  json('POST', '/secrets', '{"name": 5, "value": true}', 422, detail(err('string_type', '["body","name"]', STR, '5'), err('string_type', '["body","value"]', STR, 'true'))),
  json('POST', '/secrets', '{"name": null, "value": {"a": 1}}', 422, detail(err('string_type', '["body","name"]', STR, 'null'), err('string_type', '["body","value"]', STR, '{"a":1}'))),
  json('POST', '/secrets', '{"name": 1.0, "value": 1e5}', 422, detail(err('string_type', '["body","name"]', STR, '1.0'), err('string_type', '["body","value"]', STR, '100000.0'))),
  json('POST', '/secrets', '{"name": 1E+2, "value": 1e-7}', 422, detail(err('string_type', '["body","name"]', STR, '100.0'), err('string_type', '["body","value"]', STR, '1e-07'))),
  json('POST', '/secrets', '{"name": 123456789012345678901234567890, "value": -0}', 422, detail(err('string_type', '["body","name"]', STR, '123456789012345678901234567890'), err('string_type', '["body","value"]', STR, '0'))),
  json('POST', '/secrets', '{"name": -0.0, "value": 0.1}', 422, detail(err('string_type', '["body","name"]', STR, '-0.0'), err('string_type', '["body","value"]', STR, '0.1'))),
  json('POST', '/secrets', '{"name": "K", "value": "v", "namespace": null}', 422, detail(err('enum', '["body","namespace"]', NS, 'null', NS_CTX))),
  json('POST', '/secrets', '{"name": "K", "value": "v", "namespace": "LLM_PROVIDER"}', 422, detail(err('enum', '["body","namespace"]', NS, '"LLM_PROVIDER"', NS_CTX))),
  json('POST', '/secrets', '{"name": "K", "value": "v", "namespace": ["llm_provider"]}', 422, detail(err('enum', '["body","namespace"]', NS, '["llm_provider"]', NS_CTX))),
  json('POST', '/secrets', '{"b": 1, "2": 2, "a": 3}', 422, detail(err('missing', '["body","name"]', REQ, '{"b":1,"2":2,"a":3}'), err('missing', '["body","value"]', REQ, '{"b":1,"2":2,"a":3}')), 'a missing field echoes the object in its own key order'),
  json('POST', '/secrets', '{"name": "A", "name": "", "value": "v"}', 422, detail(err('string_too_short', '["body","name"]', 'String should have at least 1 character', '""', '{"min_length":1}')), 'duplicate keys: the last wins'),
  json('POST', '/secrets', '123', 422, detail(err('model_attributes_type', '["body"]', MODEL, '123'))),
  json('POST', '/secrets', 'true', 422, detail(err('model_attributes_type', '["body"]', MODEL, 'true'))),
  json('POST', '/secrets', '[{"name": "K", "value": "v"}]', 422, detail(err('model_attributes_type', '["body"]', MODEL, '[{"name":"K","value":"v"}]'))),
  json('POST', '/secrets', '1.5', 422, detail(err('model_attributes_type', '["body"]', MODEL, '1.5'))),
  { name: 'POST /secrets with no Content-Type is the raw text', method: 'POST', path: '/secrets', headers: AUTH, body: '{"name":"K","value":"v"}', status: 422, expected: detail(err('model_attributes_type', '["body"]', MODEL, '"{\\"name\\":\\"K\\",\\"value\\":\\"v\\"}"')) },
  { name: 'POST /secrets with an empty Content-Type is the raw text', method: 'POST', path: '/secrets', headers: { ...AUTH, 'Content-Type': '' }, body: 'x', status: 422, expected: detail(err('model_attributes_type', '["body"]', MODEL, '"x"')) },
  { name: 'POST /secrets as application/jsonx is the raw text', method: 'POST', path: '/secrets', headers: { ...AUTH, 'Content-Type': 'application/jsonx' }, body: '{}', status: 422, expected: detail(err('model_attributes_type', '["body"]', MODEL, '"{}"')) },
  { name: 'POST /secrets as application/problem+json is JSON', method: 'POST', path: '/secrets', headers: { ...AUTH, 'Content-Type': 'application/problem+json' }, body: '{}', status: 422, expected: detail(err('missing', '["body","name"]', REQ, '{}'), err('missing', '["body","value"]', REQ, '{}')) },
  { name: 'POST /secrets with no body at all is missing', method: 'POST', path: '/secrets', headers: JSON_CT, status: 422, expected: detail(err('missing', '["body"]', REQ, 'null')) },
  { name: 'a UTF-8 BOM before the JSON is accepted', method: 'POST', path: '/secrets', headers: JSON_CT, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name": ""}')]), status: 422, expected: detail(err('string_too_short', '["body","name"]', 'String should have at least 1 character', '""', '{"min_length":1}'), err('missing', '["body","value"]', REQ, '{"name":""}')) },
  { name: 'UTF-16 with a BOM is decoded as Python does', method: 'POST', path: '/secrets', headers: JSON_CT, body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"name": 1}', 'utf16le')]), status: 422, expected: detail(err('string_type', '["body","name"]', STR, '1'), err('missing', '["body","value"]', REQ, '{"name":1}')) },
  { name: 'invalid UTF-8 is 400 There was an error parsing the body', method: 'POST', path: '/secrets', headers: JSON_CT, body: Buffer.from([0x7b, 0xff, 0x7d]), status: 400, expected: plain('There was an error parsing the body') },
  json('POST', '/secrets', '[' .repeat(1001) + ']'.repeat(1001), 400, plain('There was an error parsing the body'), 'nesting past Python’s recursion limit is 400'),
  json('POST', '/secrets', 'not json', 422, jsonInvalid(0, 'Expecting value')),
  json('POST', '/secrets', '{"name": "a",', 422, jsonInvalid(13, 'Expecting property name enclosed in double quotes')),
  json('POST', '/secrets', '{"a":1,}', 422, jsonInvalid(7, 'Expecting property name enclosed in double quotes')),
  json('POST', '/secrets', '[1,]', 422, jsonInvalid(3, 'Expecting value')),
  json('POST', '/secrets', '{"a" 1}', 422, jsonInvalid(5, "Expecting ':' delimiter")),
  json('POST', '/secrets', '[1 2]', 422, jsonInvalid(3, "Expecting ',' delimiter")),
  json('POST', '/secrets', '{} []', 422, jsonInvalid(3, 'Extra data')),
  json('POST', '/secrets', '"abc', 422, jsonInvalid(0, 'Unterminated string starting at')),
  json('POST', '/secrets', '"a\\', 422, jsonInvalid(0, 'Unterminated string starting at')),
  json('POST', '/secrets', '"\\u12"', 422, jsonInvalid(2, 'Invalid \\\\uXXXX escape')),
  json('POST', '/secrets', '"\\x41"', 422, jsonInvalid(1, 'Invalid \\\\escape')),
  json('POST', '/secrets', '"a\nb"', 422, jsonInvalid(2, 'Invalid control character at')),
  json('POST', '/secrets', '{"n": tru}', 422, jsonInvalid(6, 'Expecting value')),
  json('POST', '/secrets', '{"n": NaN}', 422, jsonInvalid(6, 'Expecting value'), 'NaN is refused at its offset (a deliberate difference: Python would answer 500)'),
  json('POST', '/secrets', '{"n": 1e400}', 422, jsonInvalid(6, 'Expecting value')),
  json('POST', '/secrets', '01', 422, jsonInvalid(1, 'Extra data')),
  json('POST', '/secrets', '{"é😀": x}', 422, jsonInvalid(7, 'Expecting value')),
  { name: 'malformed JSON beats a missing token', method: 'POST', path: '/secrets', headers: { 'Content-Type': 'application/json' }, body: '{', status: 422, expected: jsonInvalid(1, 'Expecting property name enclosed in double quotes') },
  { name: 'a missing token beats a bad body', method: 'POST', path: '/secrets', headers: { 'Content-Type': 'application/json' }, body: '{}', status: 401, expected: plain('Not authenticated') },
  get('/secrets?namespace=', 422, detail(err('enum', '["query","namespace"]', NS, '""', NS_CTX))),
  get('/secrets?namespace=secret', 422, detail(err('enum', '["query","namespace"]', NS, '"secret"', NS_CTX))),
  get('/secrets/OPENAI_API_KEY?namespace=', 422, detail(err('enum', '["query","namespace"]', NS, '""', NS_CTX))),
  get('/secrets/nope?namespace=llm_provider', 404, plain('Secret not found')),
  get('/secrets/nope', 422, detail(err('missing', '["query","namespace"]', REQ, 'null')), 'missing namespace beats an unknown name'),
  { name: 'DELETE /secrets/sec_nope', method: 'DELETE', path: '/secrets/sec_nope', headers: AUTH, status: 404, expected: plain('Secret not found') },
];

const MAILBOXES: Case[] = [
  json('PATCH', '/mailboxes/mbx_gmail', '{}', 422, detail(err('missing', '["body","allow_all_senders"]', REQ, '{}'))),
  json('PATCH', '/mailboxes/mbx_gmail', 'null', 422, detail(err('missing', '["body"]', REQ, 'null'))),
  ...['2', '-1', '2.0', '"2"', '"maybe"', '""', '" true"', '9223372036854775807'].map((v) =>
    json('PATCH', '/mailboxes/mbx_gmail', `{"allow_all_senders": ${v}}`, 422, detail(err('bool_parsing', '["body","allow_all_senders"]', BOOLP, v === '2.0' ? '2.0' : v))),
  ),
  ...['1.5', 'null', '[]', '{}', '[true]', '9223372036854775808', '3e20', '0.5'].map((v) =>
    json('PATCH', '/mailboxes/mbx_gmail', `{"allow_all_senders": ${v}}`, 422, detail(err('bool_type', '["body","allow_all_senders"]', BOOLT, v === '3e20' ? '3e+20' : v))),
  ),
  ...['true', 'false', '0', '1', '1.0', '"yes"', '"OFF"', '"t"', '"N"', '"1"'].map((v) => json('PATCH', '/mailboxes/mbx_gmail', `{"allow_all_senders": ${v}}`, 200, '', `allow_all_senders ${v} is accepted`)),
  json('PATCH', '/mailboxes/mbx_gmail', '{"allow_all_senders": true, "allowed_sender_domains": "a.org"}', 422, detail(err('list_type', '["body","allowed_sender_domains"]', LIST, '"a.org"'))),
  json('PATCH', '/mailboxes/mbx_gmail', '{"allow_all_senders": true, "allowed_sender_domains": {"a": 1}}', 422, detail(err('list_type', '["body","allowed_sender_domains"]', LIST, '{"a":1}'))),
  json('PATCH', '/mailboxes/mbx_gmail', '{"allow_all_senders": true, "allowed_sender_domains": [1, true, null, "ok", []]}', 422, detail(
    err('string_type', '["body","allowed_sender_domains",0]', STR, '1'),
    err('string_type', '["body","allowed_sender_domains",1]', STR, 'true'),
    err('string_type', '["body","allowed_sender_domains",2]', STR, 'null'),
    err('string_type', '["body","allowed_sender_domains",4]', STR, '[]'),
  )),
  json('PATCH', '/mailboxes/mbx_gmail', '{"allowed_sender_domains": 1}', 422, detail(err('missing', '["body","allow_all_senders"]', REQ, '{"allowed_sender_domains":1}'), err('list_type', '["body","allowed_sender_domains"]', LIST, '1'))),
  json('PATCH', '/mailboxes/mbx_nope', '{"allow_all_senders": true}', 404, plain('Mailbox not found')),
  json('PATCH', '/mailboxes/mbx_gmail', '[]', 422, detail(err('model_attributes_type', '["body"]', MODEL, '[]'))),
  json('POST', '/mailboxes/sync', '{"provider": "yahoo"}', 422, detail(err('enum', '["body","provider"]', PROV, '"yahoo"', PROV_CTX))),
  json('POST', '/mailboxes/sync', '{"provider": ""}', 422, detail(err('enum', '["body","provider"]', PROV, '""', PROV_CTX))),
  json('POST', '/mailboxes/sync', '{"mailbox_id": 5}', 422, detail(err('string_type', '["body","mailbox_id"]', STR, '5'))),
  json('POST', '/mailboxes/sync', '{"mailbox_id": ["mbx_gmail"], "provider": 1}', 422, detail(err('string_type', '["body","mailbox_id"]', STR, '["mbx_gmail"]'), err('enum', '["body","provider"]', PROV, '1', PROV_CTX))),
  json('POST', '/mailboxes/sync', '"x"', 422, detail(err('model_attributes_type', '["body"]', MODEL, '"x"'))),
  json('POST', '/mailboxes/sync', 'null', 200, '', 'a JSON null body for the optional sync body is no body'),
  json('POST', '/mailboxes/sync', '{"mailbox_id": "mbx_nope"}', 404, plain('Mailbox not found')),
  json('POST', '/mailboxes/sync', '{', 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes')),
  get('/mailboxes/mbx_nope', 404, plain('Mailbox not found')),
  { name: 'DELETE /mailboxes/mbx_nope', method: 'DELETE', path: '/mailboxes/mbx_nope', headers: AUTH, status: 404, expected: plain('Mailbox not found') },
];

const boundary = 'b0undary';
const mp = (parts: string) => Buffer.from(parts.replace(/\n/g, '\r\n'));
const MP_CT = { ...AUTH, 'Content-Type': `multipart/form-data; boundary=${boundary}` };
const FILES_OPS: Case[] = [
  { name: 'an empty plain file field is missing', method: 'POST', path: files, headers: MP_CT, body: mp(`--${boundary}\nContent-Disposition: form-data; name="file"\n\n\n--${boundary}--\n`), status: 422, expected: detail(err('missing', '["body","file"]', REQ, 'null')) },
  { name: 'a body with only the closing boundary is missing', method: 'POST', path: files, headers: MP_CT, body: mp(`--${boundary}--\n`), status: 422, expected: detail(err('missing', '["body","file"]', REQ, 'null')) },
  { name: 'a JSON body to the upload is an empty form: missing', method: 'POST', path: files, headers: JSON_CT, body: '{"file": "x"}', status: 422, expected: detail(err('missing', '["body","file"]', REQ, 'null')) },
  { name: 'a urlencoded file field is a plain field', method: 'POST', path: files, headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'file=hello', status: 422, expected: detail(err('value_error', '["body","file"]', "Value error, Expected UploadFile, received: <class 'str'>", '"hello"', '{"error":{}}')) },
  { name: 'a part header without a colon is 400 Invalid multipart data.', method: 'POST', path: files, headers: MP_CT, body: mp(`--${boundary}\nContent-Disposition form-data\n\nx\n--${boundary}--\n`), status: 400, expected: plain('Invalid multipart data.') },
  { name: 'garbage after a boundary is 400 Invalid multipart data.', method: 'POST', path: files, headers: MP_CT, body: mp(`--${boundary}XX\n`), status: 400, expected: plain('Invalid multipart data.') },
  { name: 'a 1 MB part header is 400 Invalid multipart data.', method: 'POST', path: files, headers: MP_CT, body: mp(`--${boundary}\nContent-Disposition: form-data; name="file"; filename="${'a'.repeat(1024 * 1024)}"\n\nx\n--${boundary}--\n`), status: 400, expected: plain('Invalid multipart data.') },
  { name: 'no token with a good upload is 401', method: 'POST', path: files, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: mp(`--${boundary}\nContent-Disposition: form-data; name="file"; filename="a.txt"\n\nx\n--${boundary}--\n`), status: 401, expected: plain('Not authenticated') },
  { name: 'missing file beats an unknown session', method: 'POST', path: '/sessions/sess_nope/files', headers: MP_CT, body: mp(`--${boundary}--\n`), status: 422, expected: detail(err('missing', '["body","file"]', REQ, 'null')) },
  get('/sessions/sess_demo/files/file_nope', 404, plain('File not found')),
  get('/sessions/sess_nope/files/file_demo_notes', 404, plain('Session not found')),
  { name: 'DELETE an unknown file', method: 'DELETE', path: '/sessions/sess_demo/files/file_nope', headers: AUTH, status: 404, expected: plain('File not found') },
];

const TOKEN: Case[] = [
  { name: 'POST /token with no body', method: 'POST', path: '/token', headers: FORM_CT, status: 422, expected: detail(err('missing', '["body","username"]', REQ, 'null'), err('missing', '["body","password"]', REQ, 'null')) },
  { name: 'POST /token grant_type= counts as absent', method: 'POST', path: '/token', headers: FORM_CT, body: 'grant_type=&username=nobody&password=x', status: 400, expected: plain('Incorrect username or password') },
  { name: 'POST /token grant_type=password%20', method: 'POST', path: '/token', headers: FORM_CT, body: 'grant_type=password%20&username=a&password=b', status: 422, expected: detail(err('string_pattern_mismatch', '["body","grant_type"]', "String should match pattern '^password$'", '"password "', '{"pattern":"^password$"}')) },
  { name: 'POST /token grant_type=PASSWORD', method: 'POST', path: '/token', headers: FORM_CT, body: 'grant_type=PASSWORD', status: 422, expected: detail(err('string_pattern_mismatch', '["body","grant_type"]', "String should match pattern '^password$'", '"PASSWORD"', '{"pattern":"^password$"}'), err('missing', '["body","username"]', REQ, 'null'), err('missing', '["body","password"]', REQ, 'null')) },
  { name: 'POST /token as text/plain is an empty form', method: 'POST', path: '/token', headers: { 'Content-Type': 'text/plain' }, body: 'username=a&password=b', status: 422, expected: detail(err('missing', '["body","username"]', REQ, 'null'), err('missing', '["body","password"]', REQ, 'null')) },
  { name: 'POST /token repeated fields: the last wins', method: 'POST', path: '/token', headers: FORM_CT, body: 'username=x&password=x&username=dev%40example.com&password=password', status: 200, expected: '' },
  { name: 'POST /token + is a space', method: 'POST', path: '/token', headers: FORM_CT, body: 'username=dev%40example.com&password=pass+word', status: 400, expected: plain('Incorrect username or password') },
  { name: 'POST /token wrong password', method: 'POST', path: '/token', headers: FORM_CT, body: 'username=dev%40example.com&password=nope', status: 400, expected: plain('Incorrect username or password') },
  { name: 'POST /token does not need a token', method: 'POST', path: '/token', headers: FORM_CT, body: 'username=dev%40example.com&password=password&scope=a+b&client_id=c', status: 200, expected: '' },
];

const AUTH_ROUTING: Case[] = [
  { name: 'lower-case bearer and padding', method: 'GET', path: '/mailboxes', headers: { Authorization: 'bearer    tok   ' }, status: 200, expected: '' },
  { name: 'BEARER in capitals', method: 'GET', path: '/mailboxes', headers: { Authorization: 'BEARER tok' }, status: 200, expected: '' },
  { name: 'Bearer with only spaces is the empty token', method: 'GET', path: '/mailboxes', headers: { Authorization: 'Bearer    ' }, status: 401, expected: plain('Could not validate credentials') },
  { name: 'a token without a scheme', method: 'GET', path: '/mailboxes', headers: { Authorization: 'tok' }, status: 401, expected: plain('Not authenticated') },
  { name: 'Token scheme', method: 'GET', path: '/secrets', headers: { Authorization: 'Token tok' }, status: 401, expected: plain('Not authenticated') },
  { name: 'no token beats a bad parameter', method: 'GET', path: `${code}?as_workflow=maybe`, status: 401, expected: plain('Not authenticated') },
  { name: 'no token on delete', method: 'DELETE', path: '/secrets/sec_openai', status: 401, expected: plain('Not authenticated') },
  { name: 'PUT /secrets/x → Allow: GET', method: 'PUT', path: '/secrets/x', headers: AUTH, status: 405, expected: plain('Method Not Allowed') },
  { name: 'POST /sessions/x/workflow/code → 405', method: 'POST', path: '/sessions/x/workflow/code', headers: AUTH, status: 405, expected: plain('Method Not Allowed') },
  { name: 'GET /token → 405', method: 'GET', path: '/token', status: 405, expected: plain('Method Not Allowed') },
  { name: '405 comes before authentication', method: 'PATCH', path: '/secrets', status: 405, expected: plain('Method Not Allowed') },
  { name: 'an unknown path with a bad token is still 404', method: 'GET', path: '/v1/mailboxes', status: 404, expected: plain('Not Found') },
  { name: 'a double slash is another path', method: 'GET', path: '//mailboxes', headers: AUTH, status: 404, expected: plain('Not Found') },
  { name: 'an encoded slash in a path parameter', method: 'GET', path: '/mailboxes/a%2Fb', headers: AUTH, status: 404, expected: plain('Not Found') },
  { name: 'percent-decoded path parameter', method: 'GET', path: '/mailboxes/mbx%5Fgmail', headers: AUTH, status: 200, expected: '' },
  { name: 'case matters in paths', method: 'GET', path: '/Mailboxes', headers: AUTH, status: 404, expected: plain('Not Found') },
];

const TABLE = [...LIST_FILES, ...SCRIPT, ...SECRETS, ...MAILBOXES, ...FILES_OPS, ...TOKEN, ...AUTH_ROUTING];

let server: MockServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

test('the table holds at least 150 cases', () => {
  expect(TABLE.length).toBeGreaterThanOrEqual(150);
});

describe.each(TABLE)('$name', (c) => {
  test(`→ ${c.status}`, async () => {
    const res = await rawRequest(server.url, { method: c.method, path: c.path, headers: c.headers, body: c.body ?? null });
    expect(res.status).toBe(c.status);
    if (c.status >= 400) {
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe(c.expected);
    }
    if (c.status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
  });
});
