// A node:test reporter: one line per test case ("ok", "FAILED" or
// "skipped", with its name), a failure's error under it, and last the line
// "N passed, M failed" counting test cases (leaves: a test whose subtests
// or a file's tests were reported is not counted itself; a skipped or todo
// case counts as neither).
export default async function* countReporter(source) {
  let passed = 0;
  let failed = 0;
  let previousNesting = -1;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, skip, todo, details } = event.data;
    const parent = previousNesting > nesting;
    previousNesting = nesting;
    if (parent && event.type === 'test:pass') continue;
    if (skip !== undefined || todo !== undefined) {
      yield `skipped ${name}\n`;
    } else if (event.type === 'test:pass') {
      passed += 1;
      yield `ok ${name}\n`;
    } else {
      failed += 1;
      const error = details && details.error;
      const cause = error && error.cause ? error.cause : error;
      yield `FAILED ${name}\n  ${String(cause && cause.stack ? cause.stack : cause).split('\n').join('\n  ')}\n`;
    }
  }
  yield `${passed} passed, ${failed} failed\n`;
}
