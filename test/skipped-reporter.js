/**
 * A jest reporter line per skipped test, after the summary. Jest's default reporter names skipped
 * tests only in verbose mode, and a skip's reason lives in its title (test/needs-tool.ts), so
 * without this a suite-wide run would only count them.
 */
export default class SkippedReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      const path = file.testFilePath.replace(`${process.cwd()}/`, '');
      for (const t of file.testResults) {
        if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') skipped.push(`  ○ ${[path, ...t.ancestorTitles, t.title].join(' › ')}`);
      }
    }
    if (skipped.length > 0) process.stderr.write(`\nSkipped tests (${skipped.length}):\n${skipped.join('\n')}\n`);
  }
}
