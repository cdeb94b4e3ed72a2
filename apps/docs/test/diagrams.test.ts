import { describe, expect, it } from 'vitest';
import { layoutDiagram } from '@acp-kit/conformance/diagram';
import { allDiagrams } from '../src/diagrams/library/index.ts';
import type { SequenceDiagram } from '@acp-kit/conformance/diagram';
import { renderSequenceDiagram } from '@acp-kit/conformance/diagram';
import { estimateTextWidth } from '@acp-kit/conformance/diagram';

const twoParties: Pick<SequenceDiagram, 'participants'> = {
  participants: [
    { id: 'c', label: 'Client' },
    { id: 'a', label: 'Agent' },
  ],
};

describe('sequence diagram renderer', () => {
  it.each(allDiagrams.map((d) => [d.id, d] as const))(
    'renders %s as an svg with its title and a step-by-step description',
    (_id, diagram) => {
      const svg = renderSequenceDiagram(diagram);
      expect(svg.startsWith('<svg ')).toBe(true);
      expect(svg).toContain(`<title id="${diagram.id}-title">`);
      expect(svg).toContain(`aria-labelledby="${diagram.id}-title ${diagram.id}-desc"`);
      const desc = /<desc id="[^"]+">([^<]*)<\/desc>/.exec(svg)?.[1] ?? '';
      expect(desc).toContain(`${diagram.steps.length}.`);
    },
  );

  it('escapes markup in labels so that text cannot break the svg', () => {
    const svg = renderSequenceDiagram({
      ...twoParties,
      id: 'esc',
      title: 'a <b> & "c"',
      summary: 's',
      steps: [{ type: 'arrow', from: 'c', to: 'a', kind: 'request', label: '<script>', detail: 'x & y' }],
    });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
  });

  it('spaces the lifelines so that the longest arrow label fits between them', () => {
    const label = 'x'.repeat(80);
    const layout = layoutDiagram({
      ...twoParties,
      id: 'wide',
      title: 't',
      summary: 's',
      steps: [{ type: 'arrow', from: 'c', to: 'a', kind: 'request', label }],
    });
    const [client, agent] = layout.columns;
    expect((agent?.x ?? 0) - (client?.x ?? 0)).toBeGreaterThan(estimateTextWidth(label, 13, 'mono'));
  });

  it('rejects an arrow to a participant the diagram does not define', () => {
    expect(() =>
      renderSequenceDiagram({
        ...twoParties,
        id: 'bad',
        title: 't',
        summary: 's',
        steps: [{ type: 'arrow', from: 'c', to: 'nobody', kind: 'request', label: 'x' }],
      }),
    ).toThrow(/diagram "bad": unknown participant "nobody"/);
  });

  it('rejects a pending span that starts at an arrow it cannot find', () => {
    expect(() =>
      layoutDiagram({
        ...twoParties,
        id: 'span',
        title: 't',
        summary: 's',
        steps: [{ type: 'arrow', from: 'c', to: 'a', kind: 'request', label: 'x', id: 'req' }],
        pending: [{ participant: 'c', from: 'typo', to: 'req' }],
      }),
    ).toThrow(/unknown arrow "typo"/);
  });

  it('draws a lost message as a line ending in a cross, without an arrowhead', () => {
    const svg = renderSequenceDiagram({
      ...twoParties,
      id: 'lost',
      title: 't',
      summary: 's',
      steps: [{ type: 'arrow', from: 'a', to: 'c', kind: 'response', label: 'result', lost: true }],
    });
    expect(svg).toContain('class="seq-cross"');
    expect(svg).not.toContain('seq-head-');
  });

  it('explains in the legend only the line styles the diagram uses', () => {
    const layout = layoutDiagram({
      ...twoParties,
      id: 'legend',
      title: 't',
      summary: 's',
      steps: [
        { type: 'arrow', from: 'c', to: 'a', kind: 'request', label: 'session/prompt' },
        { type: 'arrow', from: 'a', to: 'c', kind: 'error', label: 'error' },
      ],
    });
    expect(layout.legend.map((entry) => entry.kind)).toEqual(['request', 'error']);
  });
});
