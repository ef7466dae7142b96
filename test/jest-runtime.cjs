/**
 * Jest's runtime (jest.config.js `runtime`, jest's documented extension point), with one change:
 * a CommonJS module is compiled by `vm.Script`, whose compilation V8 keeps per process, instead of
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
 */
const { Script } = require('node:vm');
const Runtime = require('jest-runtime').default;

let patched = false;

class CompileOnceRuntime extends Runtime {
  constructor(...args) {
    super(...args);
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
}

module.exports = CompileOnceRuntime;
