import type { ArrowKind, SequenceDiagram } from './model.js';

const VERB: Record<ArrowKind, string> = {
  request: 'sends the request',
  response: 'answers with',
  error: 'answers with the error',
  notification: 'sends the notification',
};

/**
 * A plain-text narration of the diagram, step by step. It becomes the SVG `<desc>`, so a
 * screen reader gets the same sequence a sighted reader follows with their eyes.
 */
export function describeDiagram(diagram: SequenceDiagram): string {
  const name = new Map(diagram.participants.map((p) => [p.id, p.label]));
  const label = (id: string): string => name.get(id) ?? id;
  const sentences = diagram.steps.map((step, i) => {
    const n = `${i + 1}.`;
    if (step.type === 'arrow') {
      const detail = step.detail === undefined ? '' : ` (${step.detail})`;
      const fate = step.lost === true ? ', which never arrives' : '';
      return `${n} ${label(step.from)} ${VERB[step.kind]} ${step.label}${detail} to ${label(step.to)}${fate}.`;
    }
    if (step.type === 'note') {
      return `${n} Note over ${step.over.map(label).join(' and ')}: ${step.lines.join(' ')}`;
    }
    return `${n} ${step.label}.`;
  });
  return [diagram.summary, ...sentences].join(' ');
}
