/**
 * The transcript lint off the page's main thread: the page posts each new transcript line once
 * (`{ lines }`) and asks for a lint (`{ lint: n }`, n the number of lines so far); the worker lints
 * the lines it holds and answers `{ lines: n, result }`. Linting 100 000 messages takes a second;
 * here it never stalls scrolling or typing.
 */
import { lintTranscript } from '@acp-kit/conformance/lint';

const lines: string[] = [];

self.onmessage = (event: MessageEvent<{ lines?: string[]; lint?: number }>) => {
  // One by one: a spread of 100 000 lines would overflow the call stack.
  for (const line of event.data.lines ?? []) lines.push(line);
  if (event.data.lint !== undefined) {
    const count = lines.length;
    const result = lintTranscript(lines.join(''));
    self.postMessage({ lines: count, result });
  }
};
