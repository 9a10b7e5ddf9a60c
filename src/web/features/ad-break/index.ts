export { useAdBreak } from './use-ad-break';
