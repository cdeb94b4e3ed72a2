/**
 * A unified-style line diff of two texts (`-` removed, `+` added, two lines of context), enough to
 * show a reviewer what changed in an API report. Common prefix and suffix are trimmed first; the
 * middle is aligned by longest common subsequence when small enough, else shown as replaced.
 */
export function lineDiff(before: string, after: string, context = 2): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops = align(a.slice(start, endA), b.slice(start, endB));
  const out: string[] = [];
  for (let i = Math.max(0, start - context); i < start; i++) out.push(`  ${a[i]}`);
  let keptRun: string[] = [];
  for (const op of ops) {
    if (op.kind === ' ') {
      keptRun.push(op.line);
      continue;
    }
    flushKept(out, keptRun, context);
    keptRun = [];
    out.push(`${op.kind} ${op.line}`);
  }
  flushKept(out, keptRun, context);
  for (let i = endA; i < Math.min(a.length, endA + context); i++) out.push(`  ${a[i]}`);
  return out;
}

interface Op {
  readonly kind: ' ' | '-' | '+';
  readonly line: string;
}

function flushKept(out: string[], kept: string[], context: number): void {
  if (kept.length <= context * 2) {
    for (const line of kept) out.push(`  ${line}`);
    return;
  }
  for (const line of kept.slice(0, context)) out.push(`  ${line}`);
  out.push('  …');
  for (const line of kept.slice(-context)) out.push(`  ${line}`);
}

const MAX_CELLS = 4_000_000;

function align(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...a.map((line) => ({ kind: '-' as const, line })),
      ...b.map((line) => ({ kind: '+' as const, line })),
    ];
  }
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] ?? '' });
      i++;
      j++;
    } else if (
      i < a.length &&
      (j === b.length || (lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0))
    ) {
      ops.push({ kind: '-', line: a[i] ?? '' });
      i++;
    } else {
      ops.push({ kind: '+', line: b[j] ?? '' });
      j++;
    }
  }
  return ops;
}
