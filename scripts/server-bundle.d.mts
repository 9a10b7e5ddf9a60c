import type { BuildOptions } from 'esbuild';

export const THREAD_ONLY_PACKAGES: RegExp;
export const mainBuild: BuildOptions;
export const threadsBuild: BuildOptions;
