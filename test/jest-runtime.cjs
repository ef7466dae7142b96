/**
 * Jest's runtime (jest.config.js `runtime`, jest's documented extension point), with three changes.
 *
 * A CommonJS module is compiled by `vm.Script`, whose compilation V8 keeps per process, instead of
 * `vm.compileFunction`, which V8 compiles afresh every time. Every test file gets its own module
 * registry (jest's isolation, unchanged: each file still evaluates every module anew, in its own
 * context); what a worker's later files no longer pay for is compiling the same dependencies'
 * code again — express, Ajv, express-openapi-validator, multer and the rest load in nearly every
 * file. Measured on 30 files that each start the app, in two workers: 7–10% less CPU (issue 31).
 *
 * The wrapper is jest's own parameter list around the unchanged source, on its first line, so
 * line numbers stay the same. A module whose source holds `import(` keeps jest's own compile: a
 * dynamic import needs jest's per-file callback, and a script compiled with a callback is not
 * cached. So do Node's core modules (jest compiles them only when a test mocks one) and anything
 * `vm.Script` refuses (jest's compile then reports the error in its own words). ES modules (the
 * sources and the tests) are jest's as before: V8 has no such cache for them.
 *
 * A worker keeps what it read and transformed: jest reads every module's file again in every test
 * file and transforms it again (swc for the sources and tests) or reads the transform back from
 * its disk cache; about a thousand files for a file that starts the app, ~0.09 CPU-s of system
 * calls and hashing each time (measured: 11 files, each starting the app and making one request,
 * in band, 5.7 → 4.8 CPU-s). Only files under the project's root are kept.
 *
 * And a file's AsyncLocalStorage instances are disabled when the file ends. Node 20 keeps every
 * enabled instance in one list until `disable()` and, at every promise or other async resource
 * created, copies each one's store onto it (a property per instance). jest-circus makes one per
 * test file (its test context; so may a library a file loads) and never disables it, so a
 * worker's later files paid for all of its earlier files' instances on every promise (the profile
 * of a full run: ~11 CPU-s in `_propagate` across the three workers; 30 files in band: 0.91 →
 * 0.04 CPU-s; too little for the whole suite's time to show). An instance used again re-enables
 * itself (`run`, `enterWith`), so disabling one that outlives its file changes nothing but its cost.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { sep } = require('node:path');
const { Script } = require('node:vm');
const Runtime = require('jest-runtime').default;

let patched = false;

/**
 * The AsyncLocalStorage instances enabled while the current test file runs (a worker runs one at
 * a time), to be disabled at its teardown. Node 20's `_enable` (what `run` and `enterWith` call) is
 * where an instance joins Node's list; where it is missing (another Node), nothing is tracked.
 */
let enabledInFile = null;
const enable = AsyncLocalStorage.prototype._enable;
if (typeof enable === 'function' && typeof AsyncLocalStorage.prototype.disable === 'function') {
  AsyncLocalStorage.prototype._enable = function _enable() {
    if (!this.enabled && enabledInFile) enabledInFile.add(this);
    return enable.call(this);
  };
}

/**
 * The worker's transforms, kept across its test files: a file's transformed code (or a JSON
 * file's text) under its path and the transformation options. Jest reads every module again in
 * every test file, and transforms it again or reads the transform from its disk cache.
 */
const transforms = new Map();

class CompileOnceRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    this.keepTransforms();
    enabledInFile = this.asyncStorages = new Set();
    if (patched) return;
    const executor = this.executor && Object.getPrototypeOf(this.executor);
    const jestCompile = executor && executor.compile;
    if (typeof jestCompile !== 'function') {
      throw new Error('test/jest-runtime.cjs: jest-runtime has no ModuleExecutor#compile any more (was jest upgraded?): adapt this runtime or remove `runtime` from jest.config.js');
    }
    patched = true;
    executor.compile = function compile(scriptSource, filename) {
      const context = this.environment.getVmContext();
      if (context == null || /\bimport\s*\(/.test(scriptSource) || this.resolution.isCoreModule(filename)) return jestCompile.call(this, scriptSource, filename);
      let script;
      try {
        script = new Script(`(function (${this.injectedModuleParameters.join(', ')}) {${scriptSource}\n})`, { filename });
      } catch {
        return jestCompile.call(this, scriptSource, filename);
      }
      return script.runInContext(context);
    };
  }

  teardown() {
    super.teardown();
    for (const storage of this.asyncStorages) storage.disable();
    this.asyncStorages.clear();
    if (enabledInFile === this.asyncStorages) enabledInFile = null;
  }

  /**
   * This file's TransformCache answers from, and adds to, the worker's `transforms`, for the
   * files under the project's root (a worker lives for one run, in which those do not change;
   * what a test writes elsewhere, such as a temporary directory, is read and transformed anew).
   */
  keepTransforms() {
    const cache = this.transformCache;
    if (!cache || typeof cache.transform !== 'function' || typeof cache.transformJson !== 'function' || typeof cache.getFullTransformationOptions !== 'function' || !(cache.transforms instanceof Map) || !(cache.sourceMaps instanceof Map)) {
      throw new Error("test/jest-runtime.cjs: jest-runtime's TransformCache changed (was jest upgraded?): adapt this runtime or remove `runtime` from jest.config.js");
    }
    const root = this._config.rootDir + sep;
    const optionKeys = new Map();
    const optionsKey = (options) => {
      let key = optionKeys.get(options);
      if (key === undefined) optionKeys.set(options, (key = JSON.stringify(cache.getFullTransformationOptions(options))));
      return key;
    };
    const kept = (kind, filename, options, make) => {
      if (options?.isInternalModule || !filename.startsWith(root)) return make();
      const key = `${kind}\0${filename}\0${optionsKey(options)}`;
      if (transforms.has(key)) return transforms.get(key);
      const value = make();
      transforms.set(key, value);
      return value;
    };
    const transform = cache.transform.bind(cache);
    cache.transform = (filename, options) => {
      const file = kept('code', filename, options, () => {
        const code = transform(filename, options);
        return cache.transforms.get(filename) ?? { code };
      });
      cache.transforms.set(filename, file);
      if (file.sourceMapPath) cache.sourceMaps.set(filename, file.sourceMapPath);
      return file.code;
    };
    const transformJson = cache.transformJson.bind(cache);
    cache.transformJson = (filename, options) => kept('json', filename, options, () => transformJson(filename, options));
  }
}

module.exports = CompileOnceRuntime;
