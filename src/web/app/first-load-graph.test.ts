import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * What a first load of `/`, `/gallery` and `/pricing` evaluates: the entry and the screen's chunk,
 * with everything they import statically. Read from the source (`import()` ends a walk: it is
 * another chunk, loaded later), so the bundler can only put less than this in the first load.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ALIASES: Record<string, string> = { '@domain': 'domain', '@contract': 'contract', '@web': 'web' };

function resolve(from: string, spec: string): string | null {
  let base: string;
  const alias = Object.keys(ALIASES).find((a) => spec === a || spec.startsWith(`${a}/`));
  if (alias) base = path.join(SRC, ALIASES[alias]!, spec.slice(alias.length));
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const f of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`])
    if (/\.tsx?$/.test(f) && existsSync(f)) return f;
  return null;
}

/** Static value imports and re-exports of one module (type-only ones are erased by the build). */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specs: string[] = [];
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          named &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) specs.push((st.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly) {
      specs.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specs;
}

/** Every module (source files relative to src/, packages by name) reached from `entries`. */
function firstLoad(...entries: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = entries.map((e) => path.join(SRC, e));
  while (stack.length) {
    const file = stack.pop()!;
    const key = path.relative(SRC, file);
    if (seen.has(key)) continue;
    seen.add(key);
    for (const spec of staticImports(file)) {
      const target = resolve(file, spec);
      if (target) stack.push(target);
      else if (!spec.startsWith('.') && !spec.endsWith('.css')) seen.add(spec);
    }
  }
  return seen;
}

const DIALOG_CODE = ['web/components/ui/dialog.tsx', '@radix-ui/react-dialog'];
const SCREENS = {
  '/': 'web/features/dashboard/dashboard-page.tsx',
  '/gallery': 'web/features/gallery/gallery-page.tsx',
  '/pricing': 'web/features/pricing/pricing-page.tsx',
};

describe('the first load', () => {
  it('walks the real graph: the entry reaches the app, the screens their own parts', () => {
    const entry = firstLoad('web/main.tsx');
    expect(entry).toContain('web/app/app.tsx');
    expect(entry).toContain('web/features/onboarding/onboarding-modal.tsx');
    expect(entry).toContain('react-dom/client');
    expect(firstLoad(SCREENS['/'])).toContain('web/features/gallery/photo-image.tsx');
    expect(firstLoad(SCREENS['/gallery'])).toContain('web/features/gallery/photo-grid.tsx');
  });

  it.each(Object.entries(SCREENS))(
    'of %s imports no dialog code (dialogs load at their first opening)',
    (_, screen) => {
      const modules = firstLoad('web/main.tsx', screen);
      expect(DIALOG_CODE.filter((m) => modules.has(m))).toEqual([]);
      expect([...modules].filter((m) => m.startsWith('@radix-ui/'))).toEqual([]);
    },
  );
});
