import fs from "node:fs";
import path from "node:path";

import ts from "typescript";
import { describe, expect, it } from "vitest";

// The classic Remix compiler empties every `*.server` module in the browser build and does not
// complain when browser code uses one: the value is simply `undefined` there (a comment box's
// maxLength once read `S.COMMENT_MAX` from an emptied module). This check finds every value
// imported from a server module that code running in the browser can reach:
// - a component, an app/lib module or the browser entry may import only types from server modules;
// - a route module may use server values only in what the compiler drops from the browser build
//   (loader, action, headers and what only they use); everything reachable from its browser exports
//   (the component, ErrorBoundary, meta, links, handle, shouldRevalidate, …) must not touch them.

const APP = path.resolve(__dirname, "../../app");
const BROWSER_EXPORTS = new Set(["default", "ErrorBoundary", "meta", "links", "handle", "shouldRevalidate", "clientLoader", "clientAction", "HydrateFallback", "Layout"]);

const isServerModule = (specifier: string) => /\.server(?:\.[jt]sx?)?$/.test(specifier) || /(?:^|\/)server\//.test(specifier.replace(/^~\//, ""));

/** Names bound to values (not types) imported from server modules. */
function serverValueImports(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!isServerModule(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) names.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) if (!element.isTypeOnly) names.add(element.name.text);
  }
  return names;
}

/** A name that is not a reference to a binding: a property, attribute or member name. */
function isMemberName(n: ts.Identifier): boolean {
  const parent = n.parent;
  return (
    (ts.isJsxAttribute(parent) && parent.name === n) ||
    (ts.isPropertyAccessExpression(parent) && parent.name === n) ||
    (ts.isPropertyAssignment(parent) && parent.name === n) ||
    (ts.isBindingElement(parent) && parent.propertyName === n) ||
    (ts.isMethodDeclaration(parent) && parent.name === n) ||
    (ts.isPropertyDeclaration(parent) && parent.name === n)
  );
}

/** Every binding a node refers to (types excluded: they are erased). */
function mentioned(node: ts.Node): Set<string> {
  const out = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isTypeNode(n) || ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n)) return;
    if (ts.isIdentifier(n) && !isMemberName(n)) out.add(n.text);
    n.forEachChild(visit);
  };
  visit(node);
  return out;
}

/** The server values a module lets into the browser, with where: empty when it is clean. */
export function serverValuesReachingBrowser(fileName: string, text: string, kind: "route" | "browser"): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const serverNames = serverValueImports(source);
  if (serverNames.size === 0) return [];
  if (kind === "browser") return [...serverNames].map((name) => `${name} (imported as a value)`);

  // Top-level declarations by name, and the roots the browser build keeps.
  const declarations = new Map<string, ts.Node>();
  const roots: { label: string; node: ts.Node }[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) continue;
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const isDefault = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      declarations.set(statement.name.text, statement);
      if (exported && (isDefault || BROWSER_EXPORTS.has(statement.name.text))) roots.push({ label: isDefault ? "default" : statement.name.text, node: statement });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        declarations.set(declaration.name.text, declaration);
        if (exported && BROWSER_EXPORTS.has(declaration.name.text)) roots.push({ label: declaration.name.text, node: declaration });
      }
    } else if (ts.isExportAssignment(statement)) {
      roots.push({ label: "default", node: statement });
    } else if (ts.isExportDeclaration(statement)) {
      // `export { X }` / `export { default } from` keep what they name.
      roots.push({ label: "export", node: statement });
    } else {
      // Any other top-level statement runs when the module loads, in the browser too.
      roots.push({ label: "module body", node: statement });
    }
  }

  const problems: string[] = [];
  for (const root of roots) {
    const seen = new Set<ts.Node>();
    const queue = [root.node];
    while (queue.length > 0) {
      const node = queue.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const name of mentioned(node)) {
        if (serverNames.has(name)) problems.push(`${name} (reached from ${root.label})`);
        const declaration = declarations.get(name);
        if (declaration && !seen.has(declaration)) queue.push(declaration);
      }
    }
  }
  return [...new Set(problems)];
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("server values never reach browser code", () => {
  it("finds the case it exists for, and leaves server-only use alone", () => {
    const route = `
      import { COMMENT_MAX, CommentSchema } from "~/server/validation/comment-schema.server";
      import { getUser } from "~/server/auth/session.server";
      import type { Thing } from "~/server/queries/things.server";
      const limit = () => COMMENT_MAX;
      export async function action({ request }) { await getUser(request); return CommentSchema.parse({}); }
      export default function Route() { return <input maxLength={limit()} />; }
    `;
    expect(serverValuesReachingBrowser("x.tsx", route, "route")).toEqual(["COMMENT_MAX (reached from default)"]);
    const clean = route.replace("maxLength={limit()}", "maxLength={10}");
    expect(serverValuesReachingBrowser("x.tsx", clean, "route")).toEqual([]);
    expect(serverValuesReachingBrowser("c.tsx", `import { x } from "../server/y.server"; export const C = () => x;`, "browser")).toEqual(["x (imported as a value)"]);
    expect(serverValuesReachingBrowser("c.tsx", `import type { X } from "~/server/y.server"; export const C = (p: X) => p;`, "browser")).toEqual([]);
  });

  it("in every route, component, app/lib module and the browser entry", () => {
    const routes = filesUnder(path.join(APP, "routes"));
    const browser = [...filesUnder(path.join(APP, "components")), ...filesUnder(path.join(APP, "lib")), path.join(APP, "entry.client.tsx"), path.join(APP, "root.tsx")];
    expect(routes.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const file of routes) {
      for (const problem of serverValuesReachingBrowser(file, fs.readFileSync(file, "utf8"), "route")) problems.push(`${path.relative(APP, file)}: ${problem}`);
    }
    for (const file of browser) {
      // root.tsx is a route module too (its loader may use server values).
      const kind = file.endsWith("root.tsx") ? "route" : "browser";
      for (const problem of serverValuesReachingBrowser(file, fs.readFileSync(file, "utf8"), kind)) problems.push(`${path.relative(APP, file)}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });
});
