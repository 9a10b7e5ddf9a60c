import { ESLint } from 'eslint';

// The house rules hold only while ESLint keeps them: these lint made-up files against eslint.config.js.
const eslint = new ESLint({ cwd: process.cwd() });
const lint = async (filePath: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId);
};

describe('architecture rules in ESLint', () => {
  // The first lint builds the TypeScript program the typed rules read: seconds alone, more than a
  // test's 30 s on a loaded machine. Built once here, so each test times its own rule only.
  beforeAll(() => lint('src/server/features/albums/probe.ts', 'export {};\n'), 180_000);

  it("refuses an import of another server feature's internal file, and allows its front door", async () => {
    const file = 'src/server/features/albums/probe.ts';
    expect(await lint(file, "export { createFiltersService } from '../filters/filters.service';\n")).toContain(
      'import-x/no-restricted-paths',
    );
    expect(await lint(file, "export { filtersRoutes } from '../filters/index';\n")).not.toContain(
      'import-x/no-restricted-paths',
    );
  });

  it("refuses a web screen reaching into another feature's files", async () => {
    const file = 'src/web/features/settings/probe.tsx';
    expect(await lint(file, "export { UpgradeModal } from '../subscription/upgrade-modal';\n")).toContain(
      'import-x/no-restricted-paths',
    );
    expect(await lint(file, "export { UpgradeModal } from '../subscription/index';\n")).toEqual([]);
  });

  it('refuses an import cycle', async () => {
    // The photos routes use the render cache, so the cache importing photos closes a loop.
    const code = "import { photosRoutes } from '../features/photos/index';\nexport const routes = photosRoutes;\n";
    expect(await lint('src/server/lib/render-cache.ts', code)).toContain('import-x/no-cycle');
  });
});
