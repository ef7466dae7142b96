/**
 * The built-in scenarios, made by a seeded faker so `npm run fixtures` rewrites fixtures/
 * byte for byte. The well-known records of CONTRACT §6 are written out literally (examples,
 * docs and tests name them); faker fills in the rest.
 */
import { Faker, en } from '@faker-js/faker';
import { scenarioFileBytes, sha256Hex } from '../src/scenarios/seeded-content.js';
import type { ScenarioFile, ScenarioFileRecord } from '../src/scenarios/scenario.js';

export const FIXTURE_SEED = 20250101;
/** Scenario timestamps are relative to this instant; loading moves them to "now". */
export const GENERATED_AT = '2025-01-01T12:05:00Z';
const BASE = Date.parse(GENERATED_AT);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const RETENTION = 7 * DAY;

const USERS = [{ username: 'dev@example.com', password: 'password' }];
/** The demo key belongs to the demo user, so curl with the key and /docs after /token see one workspace. */
const API_KEYS = [{ key: 'sk_test_demo', owner: 'dev@example.com' }];

/**
 * A realistic recorded flow: log in, wait for the dashboard, then three scrapes — one with no
 * response_format and nothing to infer from, one that brought its own, and one whose result the
 * recording kept (`result`), from which infer_response_format builds a model. The sample's keys
 * are the kind real pages give: camelCase (`nextPage`), a Python keyword (`from`), values that are
 * null in one item and not in another, integers and floats in the same column.
 */
const DEMO_ACTIONS = [
  { type: 'goto', url: 'https://example.com/login' },
  { type: 'click', selector: 'button#accept-cookies' },
  { type: 'fill', selector: '#email', value: 'dev@example.com' },
  { type: 'click', selector: 'button[type=submit]' },
  { type: 'wait', time_ms: 1500 },
  { type: 'scrape', instructions: 'Extract the account balance', response_format: null },
  {
    type: 'scrape',
    instructions: "Extract the account holder's name and plan",
    response_format: { type: 'object', properties: { name: { type: 'string' }, plan: { type: 'string' } }, required: ['name', 'plan'] },
  },
  { type: 'click', selector: 'a[href="/transactions"]' },
  {
    type: 'scrape',
    instructions: 'Extract the recent transactions',
    response_format: null,
    result: {
      account: 'Everyday Checking ••••4821',
      currency: 'USD',
      balance: 1234.56,
      transactions: [
        { date: '2024-12-30', description: 'Coffee Roasters', amount: -4.5, from: null },
        { date: '2024-12-28', description: 'Salary', amount: 2500, from: 'ACME Corp' },
      ],
      nextPage: null,
    },
  },
];

function literalFile(id: string, filename: string, mime_type: string, content: string, createdAt: number, source: ScenarioFileRecord['source']): ScenarioFileRecord {
  return {
    id,
    filename,
    mime_type,
    size: Buffer.byteLength(content, 'utf8'),
    checksum: sha256Hex(content),
    created_at: iso(createdAt),
    expires_at: iso(createdAt + RETENTION),
    source,
    content,
  };
}

const DEMO_FILES = [
  literalFile('file_demo_notes', 'notes.txt', 'text/plain', 'remember the milk\n', BASE, 'user_upload'),
  literalFile('file_demo_report', 'report.csv', 'text/csv', 'id,name\n1,alpha\n2,beta\n', BASE - 5 * 60_000, 'session_download'),
];

const FILE_KINDS = [
  { ext: 'pdf', mime: 'application/pdf' },
  { ext: 'csv', mime: 'text/csv' },
  { ext: 'png', mime: 'image/png' },
  { ext: 'json', mime: 'application/json' },
  { ext: 'txt', mime: 'text/plain' },
  { ext: 'html', mime: 'text/html' },
];

function fakeFiles(faker: Faker, count: number, maxSize: number): ScenarioFileRecord[] {
  const files: ScenarioFileRecord[] = [];
  for (let i = 0; i < count; i++) {
    const kind = faker.helpers.arrayElement(FILE_KINDS);
    const id = `file_${faker.string.hexadecimal({ length: 16, casing: 'lower', prefix: '' })}`;
    const size = faker.number.int({ min: 64, max: maxSize });
    // Within the six days before generation, so files are fresh for a day after loading.
    const createdAt = BASE - faker.number.int({ min: 60, max: 6 * 24 * 3600 }) * 1000;
    files.push({
      id,
      filename: `${faker.system.fileName({ extensionCount: 0 })}.${kind.ext}`,
      mime_type: kind.mime,
      size,
      checksum: sha256Hex(scenarioFileBytes({ id, size })),
      created_at: iso(createdAt),
      expires_at: iso(createdAt + RETENTION),
      source: faker.helpers.arrayElement(['user_upload', 'session_download'] as const),
    });
  }
  return files;
}

function mailboxes(connectionHealthy: { gmail: boolean; outlook: boolean }): ScenarioFile['mailboxes'] {
  return [
    {
      id: 'mbx_gmail',
      email_address: 'dev@gmail.example',
      provider: 'gmail',
      healthy: connectionHealthy.gmail,
      authorized_scopes: ['https://www.googleapis.com/auth/gmail.readonly'],
      allow_all_senders: false,
      allowed_sender_domains: ['example.com'],
      created_at: '2025-01-01T12:00:00Z',
      updated_at: '2025-01-01T12:00:00Z',
      connection_healthy: connectionHealthy.gmail,
    },
    {
      id: 'mbx_outlook',
      email_address: 'dev@outlook.example',
      provider: 'microsoft_outlook',
      healthy: false,
      authorized_scopes: ['Mail.Read'],
      allow_all_senders: true,
      allowed_sender_domains: [],
      created_at: '2025-01-01T12:00:00Z',
      updated_at: '2025-01-01T12:00:00Z',
      connection_healthy: connectionHealthy.outlook,
    },
  ];
}

function secrets(faker: Faker): ScenarioFile['secrets'] {
  return [
    { id: 'sec_openai', namespace: 'llm_provider', name: 'OPENAI_API_KEY', value: `sk-demo-${faker.string.alphanumeric(32)}`, created_at: '2025-01-01T12:00:00Z', last_used_at: null },
    { id: 'sec_scraper', namespace: 'function_env', name: 'SCRAPER_TOKEN', value: `scr_${faker.string.alphanumeric(24)}`, created_at: '2025-01-01T12:01:00Z', last_used_at: null },
  ];
}

function newFaker(): Faker {
  const faker = new Faker({ locale: [en] });
  faker.seed(FIXTURE_SEED);
  faker.setDefaultRefDate(BASE);
  return faker;
}

function base(name: string, description: string): Pick<ScenarioFile, '$schema' | 'name' | 'description' | 'generated_at' | 'users' | 'api_keys'> {
  return { $schema: './scenario.schema.json', name, description, generated_at: GENERATED_AT, users: USERS, api_keys: API_KEYS };
}

function defaultScenario(): ScenarioFile {
  const faker = newFaker();
  const second = { username: faker.internet.email({ provider: 'example.org' }).toLowerCase(), password: faker.internet.password({ length: 16 }) };
  return {
    ...base('default', 'The well-known records of the contract plus faker-made ones: three sessions, two mailboxes, two secrets.'),
    users: [...USERS, second],
    sessions: [
      { id: 'sess_demo', actions: DEMO_ACTIONS, files: DEMO_FILES },
      { id: 'sess_many_files', actions: [{ type: 'goto', url: 'https://files.example.com/archive' }], files: fakeFiles(faker, 150, 48 * 1024) },
      { id: 'sess_empty', actions: [], files: [] },
    ],
    mailboxes: mailboxes({ gmail: true, outlook: false }),
    secrets: secrets(faker),
  } as ScenarioFile;
}

export function generateScenarios(): Record<string, ScenarioFile> {
  const def = defaultScenario();
  const pagingFaker = newFaker();
  const expiringFaker = newFaker();
  const expiring = structuredClone(def);
  expiring.name = 'expiring';
  expiring.description = "The default scenario, but every file's expires_at falls within the hour after loading.";
  for (const s of expiring.sessions) {
    for (const f of s.files) f.expires_at = iso(BASE + expiringFaker.number.int({ min: 5, max: 59 }) * 60_000);
  }
  const unhealthy = structuredClone(def);
  unhealthy.name = 'unhealthy-mailboxes';
  unhealthy.description = 'The default scenario with every mailbox connection revoked (healthy: false).';
  unhealthy.mailboxes = mailboxes({ gmail: false, outlook: false });
  return {
    default: def,
    empty: { ...base('empty', 'Users and API keys only: no sessions, mailboxes or secrets.'), sessions: [], mailboxes: [], secrets: [] } as ScenarioFile,
    paging: {
      ...base('paging', 'One session, sess_paging, with 5,000 files for paging tests.'),
      sessions: [{ id: 'sess_paging', actions: [], files: fakeFiles(pagingFaker, 5000, 4 * 1024) }],
      mailboxes: [],
      secrets: [],
    } as ScenarioFile,
    expiring,
    'unhealthy-mailboxes': unhealthy,
  };
}

export function serialize(s: ScenarioFile): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}
