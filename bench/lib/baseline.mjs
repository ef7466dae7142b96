/**
 * The baseline build for `--baseline REF`: the commit checked out into a temporary git worktree
 * (detached, under the benchmark's work directory), its dependencies installed — linked to the
 * working tree's node_modules when the two package-lock.json files are byte for byte equal, else
 * `npm ci --prefer-offline` — and built with its own `npm run build`. `remove()` deletes the
 * worktree (the entry calls it however the run ends).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../options.mjs';

function git(root, args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return { ok: r.status === 0, out: (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() };
}

/** The working tree's commit, and whether it has changes not committed (the results say what was measured). */
export function describeWorkingTree(root) {
  const head = git(root, ['rev-parse', 'HEAD']);
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return { commit: head.ok ? head.out : null, uncommittedChanges: status.ok ? status.out.length > 0 : null };
}

/** The commit `ref` names in this repository; a UsageError when none (checked before any work starts). */
export function resolveBaseline(root, ref) {
  const r = git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!r.ok || !/^[0-9a-f]{40}$/.test(r.out)) throw new UsageError(`--baseline: ${JSON.stringify(ref)} names no commit of this repository`);
  return r.out;
}

/** Runs a step of the baseline's preparation with its output on stderr; throws naming the step when it fails. */
function step(what, cmd, args, cwd, log) {
  log(`baseline: ${what}`);
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error(`baseline: ${what} failed (exit ${r.status ?? r.signal})`);
}

export function prepareBaseline({ root, work, ref, commit, log }) {
  const dir = join(work, `baseline-${commit.slice(0, 12)}`);
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  let added = false;
  const remove = () => {
    if (!added) return;
    added = false;
    // The link to the working tree's node_modules goes first, on its own, so that nothing removing
    // the worktree could ever follow it into the working tree's packages.
    const link = join(dir, 'node_modules');
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
    // --force: the build left dist/ (untracked) in it.
    const r = git(root, ['worktree', 'remove', '--force', dir]);
    if (!r.ok) log(`baseline: could not remove the worktree ${dir}: ${r.err}`);
  };
  try {
    step(`git worktree add --detach ${dir} ${commit.slice(0, 12)} (${ref})`, 'git', ['worktree', 'add', '--detach', '--quiet', dir, commit], root, log);
    added = true;
    const lock = (d) => (existsSync(join(d, 'package-lock.json')) ? readFileSync(join(d, 'package-lock.json')) : null);
    const ours = lock(root);
    const theirs = lock(dir);
    let nodeModules;
    if (ours && theirs && ours.equals(theirs) && existsSync(join(root, 'node_modules'))) {
      // The same lock installs the same packages: reuse the working tree's rather than install again.
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      nodeModules = 'linked to the working tree (same package-lock.json)';
      log(`baseline: ${nodeModules}`);
    } else {
      step('npm ci --prefer-offline (its package-lock.json differs from the working tree)', npm[0], [...npm.slice(1), 'ci', '--prefer-offline', '--no-audit', '--no-fund'], dir, log);
      nodeModules = 'npm ci --prefer-offline';
    }
    step('npm run build', npm[0], [...npm.slice(1), 'run', 'build'], dir, log);
    const cli = join(dir, 'dist', 'bin', 'cli.js');
    if (!existsSync(cli)) throw new Error(`baseline: ${commit.slice(0, 12)}'s build made no dist/bin/cli.js`);
    return { ref, commit, dir, cli, nodeModules, label: `baseline ${commit.slice(0, 7)}`, remove };
  } catch (e) {
    remove();
    throw e;
  }
}
