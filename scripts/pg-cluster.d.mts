export interface InitialisedCluster {
  bin: string;
  dir: string;
  data: string;
  port: number;
  url: string;
}
export function findPgBin(): string | null;
export function freePort(): Promise<number>;
export function initCluster(prefix?: string): Promise<InitialisedCluster>;
export function startPostmaster(c: InitialisedCluster, maxConnections?: number): void;
export function startPostmasterOnFreePort(
  c: InitialisedCluster,
  maxConnections?: number,
  attempts?: number,
): Promise<void>;
export function postmasterPid(dataDir: string): number | null;
export function startCluster(): Promise<{ url: string; dir: string; pid: number | null }>;
export function stopCluster(dir: string): void;
