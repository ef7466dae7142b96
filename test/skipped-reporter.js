/**
 * After the summary: a line per skipped test, and the slowest test files. Jest's default reporter
 * names skipped tests only in verbose mode, and a skip's reason lives in its title
 * (test/needs-tool.ts), so without this a suite-wide run would only count them. The slowest files
 * are where the run's time goes (issue 31: the suite is kept within 4 minutes on 2 cores).
 */
const SLOWEST = 10;

export default class SkippedReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    const times = [];
    for (const file of results.testResults) {
      const path = file.testFilePath.replace(`${process.cwd()}/`, '');
      for (const t of file.testResults) {
        if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') skipped.push(`  ○ ${[path, ...t.ancestorTitles, t.title].join(' › ')}`);
      }
      if (file.perfStats?.end && file.perfStats?.start) times.push([file.perfStats.end - file.perfStats.start, path]);
    }
    if (skipped.length > 0) process.stderr.write(`\nSkipped tests (${skipped.length}):\n${skipped.join('\n')}\n`);
    if (times.length > 1) {
      const slowest = times.sort((a, b) => b[0] - a[0]).slice(0, SLOWEST);
      process.stderr.write(`\nSlowest test files:\n${slowest.map(([ms, path]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${path}`).join('\n')}\n`);
    }
  }
}
