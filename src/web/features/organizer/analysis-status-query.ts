import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AnalysisStatus, AnalyzeAllResult } from '@contract/analysis';
import { apiRequest, errorStatus } from '../../lib/api';

/** While analysis jobs are pending the organizer refreshes its count this often (the only polling screen). */
export const ANALYSIS_POLL_MS = 2000;
/**
 * After the server refused a poll (429: the per-user limit, 900 per 5 minutes), the next waits this
 * long: polling on at 2 s would only be refused again until the window ends, while the last counts
 * stay on screen.
 */
export const ANALYSIS_POLL_LIMITED_MS = 30_000;

export function analysisStatusQueryOptions() {
  return queryOptions<AnalysisStatus>({ queryKey: ['/api/photos/analysis-status'] });
}

export function useAnalysisStatus() {
  return useQuery({
    ...analysisStatusQueryOptions(),
    refetchInterval: (q) => {
      if ((q.state.data?.pending ?? 0) === 0) return false;
      return errorStatus(q.state.error) === 429 ? ANALYSIS_POLL_LIMITED_MS : ANALYSIS_POLL_MS;
    },
  });
}

export function useAnalyzeAll() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await (await apiRequest('POST', '/api/photos/analyze-all')).json()) as AnalyzeAllResult,
    onSuccess: async (r) => {
      // A count asked before (an upload's end refreshes it) may have been read before the jobs were
      // queued: answered after this, it said nothing was pending, and the run ended at once with
      // 'Analysis Complete' over photos not analysed. The run's own count wins.
      await qc.cancelQueries({ queryKey: analysisStatusQueryOptions().queryKey });
      qc.setQueryData(analysisStatusQueryOptions().queryKey, r.status);
    },
  });
}
