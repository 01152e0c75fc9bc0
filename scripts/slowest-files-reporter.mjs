// A node:test reporter that prints, at the end of a run, the test files that took longest (the
// sum of their top-level tests' durations), so the suite's time budget (CONTRIBUTING.md#tests)
// is watched where it is spent. run-tests.mjs adds it beside the spec reporter.
export default async function* slowestFiles(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const ms = event.data.details?.duration_ms ?? 0;
      perFile.set(event.data.file, (perFile.get(event.data.file) ?? 0) + ms);
    }
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.SDS_TEST_SLOWEST ?? 15));
  const total = [...perFile.values()].reduce((a, b) => a + b, 0);
  yield `\nslowest test files (of ${perFile.size}, ${(total / 1000).toFixed(0)} s in all):\n`;
  const root = `${process.cwd()}/`;
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(root, '')}\n`;
}
