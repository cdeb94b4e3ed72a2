import { IndentationText, type FormatCodeSettings, Project, QuoteKind, type SourceFile } from 'ts-morph';

const FORMAT: FormatCodeSettings = {
  indentSize: 2,
  tabSize: 2,
  convertTabsToSpaces: true,
};

/** An in-memory ts-morph project: emitters build ASTs in it and never touch the disk. */
export function createProject(): Project {
  return new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Single },
  });
}

/** Formats a source file and returns its text after the generated-file header. */
export function printSourceFile(header: string, file: SourceFile): string {
  file.formatText(FORMAT);
  return `${header}\n${file.getFullText().trimStart()}`;
}

/** Escapes text for a TSDoc comment body so it cannot close the comment early. */
export function docText(text: string): string {
  return text.replaceAll('*/', '*\\/').trim();
}

/** A string as a single-quoted TypeScript literal, the quoting style of all generated code. */
export function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
