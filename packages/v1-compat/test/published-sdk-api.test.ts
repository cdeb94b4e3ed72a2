import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const SDK_DIST = join(PACKAGE, '..', 'sdk', 'dist') + sep;

/** The package's sources as a TypeScript program, with the build's options. */
function sourceProgram(): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(PACKAGE, 'tsconfig.build.json'),
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => expect.fail(String(d.messageText)) },
  );
  if (parsed === undefined) expect.fail('tsconfig.build.json could not be read');
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** True when the type (or the class a constructor belongs to) is declared in the SDK's build. */
function declaredBySdk(type: ts.Type): boolean {
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  return (symbol?.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.startsWith(SDK_DIST));
}

/** Every `x as unknown` / `x as any` (the first half of a cast around a type) of an SDK object. */
function castsOfSdkObjects(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(join(PACKAGE, 'src') + sep)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
        const target = node.type.kind;
        const erases = target === ts.SyntaxKind.UnknownKeyword || target === ts.SyntaxKind.AnyKeyword;
        if (erases && declaredBySdk(checker.getTypeAtLocation(node.expression))) {
          const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
          found.push(`${relative(PACKAGE, file.fileName)}:${line + 1} ${node.getText(file)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe("the v1 bridges build on the SDK's published API only", () => {
  // Long: a TypeScript program over the bridges' sources and the SDK's declarations (63 s seen on a
  // loaded 2-core machine), hence its own timeout.
  it("compile against the SDK's built declarations, which leave out its internals, and cast no SDK object around them", () => {
    const program = sourceProgram();
    const options = program.getCompilerOptions();

    // The SDK is resolved the way a consumer resolves it: its exports map, to the built .d.ts.
    const sdk = ts.resolveModuleName('@acp-kit/sdk', join(PACKAGE, 'src', 'index.ts'), options, ts.sys);
    expect(sdk.resolvedModule?.resolvedFileName).toBe(join(SDK_DIST, 'index.d.ts'));

    // Built with stripInternal: the session internals the bridge used to reach for are not there.
    const declarations = ts.sys.readFile(join(SDK_DIST, 'agent', 'agent-session.d.ts')) ?? '';
    expect(declarations).toContain('declare class AgentSession');
    for (const internal of ['attach(', 'release(', 'sendTo(', 'sendStateTo(', 'promptArrived(']) {
      expect([internal, declarations.includes(internal)]).toEqual([internal, false]);
    }
    expect(ts.sys.readFile(join(SDK_DIST, 'agent', 'adapter-session.d.ts'))).toContain(
      'declare class AdapterSession',
    );

    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    expect(castsOfSdkObjects(program)).toEqual([]);
  }, 180_000);
});
