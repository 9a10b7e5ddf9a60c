import { z } from 'zod';

/** `GET /api/photos/analysis-status`: what the organizer shows as 'N/M analyzed' while jobs run. */
export const analysisStatus = z.object({
  total: z.number().int(),
  analyzed: z.number().int(),
  /** Analysis jobs of this user still queued or running. */
  pending: z.number().int(),
});
export type AnalysisStatus = z.infer<typeof analysisStatus>;

/** `POST /api/photos/analyze-all` answers at once; the work happens in the background queue. */
export const analyzeAllResult = z.object({
  queued: z.number().int(),
  status: analysisStatus,
});
export type AnalyzeAllResult = z.infer<typeof analyzeAllResult>;
