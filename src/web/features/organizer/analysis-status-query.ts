import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AnalysisStatus, AnalyzeAllResult } from '@contract/analysis';
import { apiRequest } from '../../lib/api';

/** While analysis jobs are pending the organizer refreshes its count this often (the only polling screen). */
export const ANALYSIS_POLL_MS = 2000;

export function analysisStatusQueryOptions() {
  return queryOptions<AnalysisStatus>({ queryKey: ['/api/photos/analysis-status'] });
}

export function useAnalysisStatus() {
  return useQuery({
    ...analysisStatusQueryOptions(),
    refetchInterval: (q) => ((q.state.data?.pending ?? 0) > 0 ? ANALYSIS_POLL_MS : false),
  });
}

export function useAnalyzeAll() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await (await apiRequest('POST', '/api/photos/analyze-all')).json()) as AnalyzeAllResult,
    onSuccess: (r) => qc.setQueryData(analysisStatusQueryOptions().queryKey, r.status),
  });
}
