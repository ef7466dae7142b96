/**
 * Every name the exported script takes from the service's Python SDK, in one place, so a rename
 * in the SDK is a one-line change here.
 *
 * These follow the real service's recorded export (fastapi-examples.json, ex-076), not the prose
 * of issue #3: the recording shows `from service_sdk import Client`, `client.sessions.create()`
 * and one `session.<action>(param=…)` call per action, where the issue spoke of `notte_sdk`,
 * `NotteClient` and `session.execute(type=…)`. Where prose and a recording disagree, the
 * recording is right.
 */
export const SDK = {
  module: 'service_sdk',
  clientClass: 'Client',
  clientVar: 'client',
  sessionVar: 'session',
  /** Called on the client to open the browser session the actions replay in. */
  newSession: 'sessions.create()',
} as const;

/** The action type whose result can be typed by a response_format. */
export const SCRAPE = 'scrape';

/**
 * Action type → the session method that replays it. The recording shows goto, fill, click and
 * scrape, each method named after its type; the others are named the same way: wait, which the
 * default scenario records, and the common browser actions a scenario of one's own may record.
 * An action type not listed here is not replayed: the script carries it as a comment, so an
 * export never fails on a session the SDK cannot replay.
 */
export const ACTION_METHODS: ReadonlyMap<string, string> = new Map([
  ['goto', 'goto'],
  ['go_back', 'go_back'],
  ['go_forward', 'go_forward'],
  ['reload', 'reload'],
  ['click', 'click'],
  ['fill', 'fill'],
  ['select_option', 'select_option'],
  ['press_key', 'press_key'],
  ['scroll', 'scroll'],
  ['wait', 'wait'],
  [SCRAPE, 'scrape'],
]);

/** How an action the SDK cannot replay appears in the script: this, then the action as a literal. */
export const UNSUPPORTED_PREFIX = '# unsupported action: ';

/**
 * The schema the real service puts into a scrape with instructions and no response_format when
 * it has nothing to infer from (recorded in ex-076), passed to the SDK as a dict literal.
 */
export const FALLBACK_RESPONSE_FORMAT = { type: 'object', properties: { result: { type: 'string' } } } as const;

/**
 * The key under which a scenario records what a scrape returned. It is an outcome, never a
 * parameter: it is not exported in json_actions and not passed to the SDK.
 */
export const RESULT_SAMPLE = 'result';
