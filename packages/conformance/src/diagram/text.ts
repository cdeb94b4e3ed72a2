/** Escapes text for use inside SVG element content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/**
 * Average advance per character, in ems. The renderer cannot measure text at build
 * time, so it estimates generously: monospace fonts are ~0.6em everywhere, and
 * proportional text is assumed a little wider than usual so it never overflows a box.
 */
const EM_PER_CHAR = { mono: 0.62, sans: 0.58 } as const;

/** Font families the estimate is made for. */
export type FontKind = keyof typeof EM_PER_CHAR;

/** Estimated rendered width in pixels of a single line of text. */
export function estimateTextWidth(text: string, fontSize: number, font: FontKind): number {
  return Math.ceil([...text].length * fontSize * EM_PER_CHAR[font]);
}
