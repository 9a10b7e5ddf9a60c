import { lazy } from 'react';

export const PhotoEditorPage = lazy(() => import('./photo-editor-page'));
