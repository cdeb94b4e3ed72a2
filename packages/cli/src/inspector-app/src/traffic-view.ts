import { ruleInfo, type RuleId } from '@acp-kit/conformance/lint';
import { el } from './dom.js';
import { formatElapsed } from './elapsed.js';
import { jsonWithPointers } from './json-view.js';
import type { Traffic, TrafficRow } from './traffic.js';
import { clipped, type LintView, lintView } from './views.js';
import { VirtualList } from './virtual-list.js';

/** The Traffic tab's filters. */
export interface TrafficFilter {
  session: string;
  method: string;
  kind: string;
}

const ARROW = { 'client->agent': 'client → agent', 'agent->client': 'agent → client' } as const;

function matches(row: TrafficRow, filter: TrafficFilter): boolean {
  if (filter.session !== '' && !row.sessionId.includes(filter.session)) return false;
  if (filter.method !== '' && !row.method.includes(filter.method)) return false;
  if (filter.kind !== '' && row.kind !== filter.kind) return false;
  return true;
}

/** The rows the filters let through, in order. */
export function visibleRows(traffic: Traffic, filter: TrafficFilter): TrafficRow[] {
  return traffic.rows.filter((row) => matches(row, filter));
}

/** How the table shows its rows: the lint's verdict (live or not), the expanded rows, the expand control. */
export interface TrafficDisplay {
  readonly verdict: LintView | undefined;
  readonly expanded: ReadonlySet<number>;
  toggle(index: number): void;
}

function rowView(traffic: Traffic, row: TrafficRow, display: TrafficDisplay): HTMLElement {
  const { verdict } = display;
  const findings = verdict === undefined ? [] : traffic.findingsOf(row).filter(verdict.shows);
  const clip = clipped(row.text);
  const open = display.expanded.has(row.index);
  const validity =
    row.validity === 'valid'
      ? `valid (v${row.version})`
      : row.validity === 'unchecked'
        ? `no v${row.version} schema for this method`
        : row.validity === 'garbage'
          ? `parse error: ${row.issues[0]?.message ?? ''}`
          : `invalid (v${row.version})`;
  return el(
    'tr',
    {
      class: `row ${row.kind} ${row.validity}${findings.length > 0 ? ' has-findings' : ''}${clip && !open ? ' clipped' : ''}`,
      'data-index': row.index,
      'data-line': row.line,
    },
    el('td', { class: 'n' }, String(row.index + 1)),
    el('td', { class: 'dir' }, ARROW[row.dir]),
    el('td', { class: 't', title: `${row.t} ms after the inspector started` }, formatElapsed(row.t)),
    el('td', { class: 'kind' }, row.kind),
    el('td', { class: 'method' }, row.method),
    el('td', { class: 'session' }, row.sessionId),
    el(
      'td',
      { class: 'check' },
      el('div', { class: 'validity' }, validity),
      ...row.issues
        .filter(() => row.validity === 'invalid')
        .map((issue) =>
          el(
            'div',
            { class: 'issue' },
            el('code', { class: 'pointer' }, issue.pointer || '/'),
            ` ${issue.message}`,
          ),
        ),
      ...findings.map((finding) =>
        el(
          'div',
          { class: 'finding', 'data-rule': finding.ruleId },
          `${ruleTier(finding.ruleId)} ${finding.ruleId}: ${finding.message}`,
          finding.pointer ? el('code', { class: 'pointer' }, ` ${finding.pointer}`) : undefined,
        ),
      ),
    ),
    el(
      'td',
      { class: 'raw' },
      el(
        'div',
        { class: 'clip' },
        row.validity === 'invalid'
          ? jsonWithPointers(
              row.text,
              row.msg,
              row.issues.map((issue) => issue.pointer),
            )
          : el('code', {}, row.text.length > 2000 ? `${row.text.slice(0, 2000)}…` : row.text),
      ),
      clip
        ? el(
            'button',
            {
              type: 'button',
              class: 'expand',
              'aria-expanded': open ? 'true' : 'false',
              onclick: () => display.toggle(row.index),
            },
            open ? 'Show less' : `Show all (${row.text.length} characters)`,
          )
        : undefined,
    ),
  );
}

function ruleTier(id: string): string {
  try {
    return ruleInfo(id as RuleId).tier === 'mandatory' ? 'MUST' : 'SHOULD';
  } catch {
    return '';
  }
}

/**
 * The traffic table (virtualized: a flood of 100 000 frames keeps only the rows near the view in
 * the DOM) and the lint summary. The lint runs only on v2 traffic (its rules are v2's).
 */
export class TrafficView {
  readonly #list: VirtualList;
  readonly #summary: HTMLElement;
  #summaryKey: unknown;
  #summaryStale = false;
  #summaryLive = false;

  constructor(viewport: HTMLElement, body: HTMLElement, summary: HTMLElement) {
    this.#list = new VirtualList(
      viewport,
      body,
      () => el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: 8 })),
      36,
    );
    this.#summary = summary;
  }

  /**
   * Position (in the rows last rendered) just after the last row the table shows on screen, so the
   * diagram can end where the reader is; the end of the list while the table follows new rows.
   */
  lastVisible(viewport: HTMLElement, body: HTMLElement, count: number): number {
    if (this.#list.following) return count;
    const bottom = viewport.getBoundingClientRect().bottom;
    let last = -1;
    for (const row of body.querySelectorAll<HTMLElement>('tr.row')) {
      if (row.getBoundingClientRect().top >= bottom) break;
      last = Number(row.dataset.position);
    }
    return last === -1 ? count : Math.min(count, last + 1);
  }

  /** Rows in the DOM now. */
  get renderedRows(): number {
    return this.#list.renderedCount;
  }

  /**
   * Renders `rows` (the ones the filters let through) and the summary. `live`: the connection is
   * open, so findings about a turn not ended yet are not shown as broken (see {@link lintView}).
   */
  render(
    traffic: Traffic,
    rows: readonly TrafficRow[],
    live: boolean,
    expanded: ReadonlySet<number>,
    toggle: (index: number) => void,
  ): void {
    const lintOn = traffic.version === 2;
    const lint = lintOn ? traffic.lint() : undefined;
    const verdict = lint === undefined ? undefined : lintView(lint, live);
    const display: TrafficDisplay = { verdict, expanded, toggle };
    this.#list.update(
      rows.map((row, position) => ({
        key: String(row.index),
        deps: [row, lint, position, live, expanded.has(row.index)],
        render: () => {
          const node = rowView(traffic, row, display);
          node.dataset.position = String(position);
          return node;
        },
      })),
    );
    const stale = traffic.lintStale();
    if (this.#summaryKey === (lint ?? traffic) && this.#summaryStale === stale && this.#summaryLive === live)
      return;
    this.#summaryKey = lint ?? traffic;
    this.#summaryLive = live;
    this.#summaryStale = stale;
    if (lint === undefined) {
      this.#summary.replaceChildren(
        'The prompt-lifecycle lint applies to v2 traffic; this connection speaks v1.',
      );
      return;
    }
    const shown = verdict ?? lintView(lint, live);
    const unlocated = lint.findings.filter((finding) => finding.line === undefined && shown.shows(finding));
    this.#summary.replaceChildren(
      el(
        'p',
        { class: shown.broken.length === 0 ? 'lint-clean' : 'lint-failed', 'data-tone': shown.tone },
        shown.text,
      ),
      ...(stale ? [el('p', { class: 'lint-stale' }, 'Newer messages are still being checked…')] : []),
      ...unlocated.map((finding) => el('p', { class: 'finding' }, `${finding.ruleId}: ${finding.message}`)),
    );
  }
}
